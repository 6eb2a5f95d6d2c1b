/**
 * `inspect --logs` is what every truncation marker tells a person to paste,
 * and it prints job-controlled bytes (#10 item 10). On a terminal, OSC 52
 * clipboard writes, title changes, hyperlinks and other control bytes are
 * shown as escapes (`\x1b`), so they cannot act; `--raw` writes them as they
 * are. Piped, the output stays byte for byte what the job printed, as the
 * marker promises. The terminal is a real pseudo-terminal from util-linux
 * `script`.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const HOSTILE =
  'clip\x1b]52;c;cHduZWQ=\x07 title\x1b]0;pwned\x07 link\x1b]8;;https://example.invalid\x07here\x1b]8;;\x07 csi\x1b[2J c1\u009b31m bidi\u202eabc bell\x07';
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' };

/** Runs the bin with stdout on a pseudo-terminal; returns what the terminal received. */
function onTerminal(args: string[]): Buffer {
  const command = [BIN, ...args].map((a) => `'${a}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], { env, timeout: 60_000 });
  expect(result.status, result.stderr.toString()).toBe(0);
  return result.stdout;
}

beforeAll(() => {
  expect(cli(home, ['create', '--workspace-id', 'tty-ws']).code).toBe(0);
  expect(cli(home, ['run', '--job-id', 'tty-job', 'tty-ws', 'echo', HOSTILE]).code).toBe(0);
});

describe('inspect --logs', () => {
  it('on a terminal shows escapes and control bytes as text', () => {
    const shown = onTerminal(['inspect', 'tty-job', '--logs']).toString('utf8');
    expect(shown).toContain('clip\\x1b]52;c;cHduZWQ=\\x07');
    expect(shown).toContain('bidi\\u202eabc');
    expect(shown).toContain('c1\\x9b31m');
    expect(shown).not.toMatch(/[\x07\x1b\u009b\u202e]/);
  });

  it('with --raw on a terminal writes the bytes as they are', () => {
    const shown = onTerminal(['inspect', 'tty-job', '--logs', '--raw']).toString('utf8');
    expect(shown).toContain('clip\x1b]52;c;cHduZWQ=\x07');
  });

  it('piped stays byte for byte what the job printed', () => {
    const piped = spawnSync(BIN, ['inspect', 'tty-job', '--logs'], { env });
    expect(piped.status).toBe(0);
    expect(piped.stdout.equals(Buffer.from(`${HOSTILE}\n`))).toBe(true);
  });
});

describe('other human output on a terminal', () => {
  it('carries no raw escape from the job, in logs or in the run result', () => {
    for (const args of [
      ['logs', 'tty-job', '--tail', '5'],
      ['inspect', 'tty-job'],
    ]) {
      const shown = onTerminal(args).toString('utf8');
      expect(shown).toContain('clip');
      expect(shown).not.toMatch(/[\x07\x1b\u009b\u202e]/);
    }
  });
});
