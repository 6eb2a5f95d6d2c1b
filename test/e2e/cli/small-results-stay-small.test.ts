/**
 * A small job costs an agent a small result (#13): `run W true` is at most
 * 450 bytes of markdown, and a job that prints about 1 KB comes back within
 * its raw output plus 500 bytes, every byte of that output included. The
 * nine headings are always there; the fixed cost around them is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
// A generated-length id, so the figure holds for ids as headspace makes them.
const WS = 'ws-3f9c2a1b7d4e';
beforeAll(() => {
  expect(cli(home, ['create', '--workspace-id', WS]).code).toBe(0);
});
afterAll(cleanup);

describe('small results', () => {
  it('keep run W true within 450 bytes of markdown', () => {
    const run = cli(home, ['run', WS, 'true']);
    expect(run.code, run.stderr).toBe(0);
    expect(Buffer.byteLength(run.stdout)).toBeLessThanOrEqual(450);
    expect(run.stdout.match(/^## /gm)).toHaveLength(9);
  });

  it('keep a job with a 1 KB output within raw + 500 bytes, output whole', () => {
    const run = cli(home, ['run', '--job-id', 'job-kb', WS, 'flood', '1024']);
    expect(run.code, run.stderr).toBe(0);
    const raw = cli(home, ['inspect', 'job-kb', '--logs']).stdout;
    expect(Buffer.byteLength(raw)).toBe(1024);
    expect(run.stdout).toContain(raw);
    expect(Buffer.byteLength(run.stdout)).toBeLessThanOrEqual(1024 + 500);
    // Nothing was left out, so no retrieval command is printed.
    expect(run.stdout).not.toContain('--logs');
  });
});
