/**
 * The seed's 20,000-line trace (about 1.7 MB) comes back as a default
 * markdown result of at most 8 KiB — at least 100× smaller — that still
 * carries the final answer line and the error line, and whose truncation
 * marker names a command that, pasted into a shell, returns every byte.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { traceLines } from '../../../src/providers/fake/fake-commands.js';
import { cli, makeHome, shell } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a 1.7 MB job log', () => {
  it('returns ≤ 8 KiB with the answer and error lines and a pasteable retrieval command', () => {
    const expected = [...traceLines(20000, 7777)].join('');
    const answer = expected.trimEnd().split('\n').pop()!;
    expect(answer).toMatch(/^answer=\d+$/);
    expect(expected.length).toBeGreaterThan(1_600_000);

    expect(cli(home, ['create', '--workspace-id', 'trace']).code).toBe(0);
    const run = cli(home, ['run', 'trace', 'trace', '20000', '7777']);
    expect(run.code, run.stderr).toBe(0);
    const bytes = Buffer.byteLength(run.stdout);
    expect(bytes).toBeLessThanOrEqual(8192);
    expect(expected.length / bytes).toBeGreaterThanOrEqual(100);
    expect(run.stdout).toContain(answer);
    expect(run.stdout).toContain('ERROR: checksum drift at step 7777');
    // Under 1% of the trace lines come back.
    const traceLinesShown = run.stdout.split('\n').filter((l) => l.startsWith('trace step=')).length;
    expect(traceLinesShown).toBeLessThan(200);

    const marker = /…\[truncated: (\d+) of (\d+) bytes shown -- full text: `([^`]+)`\]/.exec(run.stdout);
    expect(marker, 'a truncation marker').not.toBeNull();
    expect(Number(marker![2])).toBe(expected.length);
    expect(marker![3]).not.toMatch(/headspace inspect headspace inspect|--logs --logs/);
    const pasted = shell(home, marker![3]!);
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(pasted.stdout).toBe(expected);
  });
});
