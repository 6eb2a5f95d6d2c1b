/**
 * `headspace serve` (#20) refuses, with exit 2 and nothing bound, a serve
 * directory that is a link (it is never followed), that others can enter,
 * or that another user owns, and a socket path taken by something that is
 * not this user's socket.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const homes = [makeHome(), makeHome(), makeHome(), makeHome()];
const elsewhere = mkdtempSync(join(tmpdir(), 'hs-serve-elsewhere-'));
afterAll(async () => {
  for (const h of homes) await h.cleanup();
  rmSync(elsewhere, { recursive: true, force: true });
});

const plants: Array<[string, (home: string) => void]> = [
  ['a link to another directory', (home) => symlinkSync(elsewhere, join(home, 'serve'))],
  ['a directory others can enter', (home) => mkdirSync(join(home, 'serve'), { mode: 0o755 })],
  [
    "a directory of another user's",
    (home) => {
      mkdirSync(join(home, 'serve'), { mode: 0o700 });
      chownSync(join(home, 'serve'), 65534, 65534);
    },
  ],
  [
    'a regular file where the socket goes',
    (home) => {
      mkdirSync(join(home, 'serve'), { mode: 0o700 });
      writeFileSync(join(home, 'serve', 'sock'), '');
    },
  ],
];

describe('headspace serve on a planted serve directory or socket', () => {
  it.each(plants.map(([what, plant], i) => [what, plant, i] as const))('refuses %s with exit 2 and a remedy', (_what, plant, i) => {
    const home = homes[i]!.home;
    plant(home);
    chmodSync(home, 0o700);
    const r = cli(home, ['serve', '--idle', '1']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .*(not a directory of this user's|not a socket of this user's)/);
    expect(r.stderr).toMatch(/\nhint: /);
  });
});
