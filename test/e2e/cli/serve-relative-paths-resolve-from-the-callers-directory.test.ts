/**
 * A relative host path is the caller's: through `headspace serve`, whose own
 * directory is /, put reads ./FILE and export writes --to ./DIR/FILE in the
 * directory the client runs in, as the in-process CLI does.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { baseEnv } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
const cwd = mkdtempSync(join(tmpdir(), 'hs-serve-cwd-'));
afterAll(async () => {
  await cleanup();
  rmSync(cwd, { recursive: true, force: true });
});

const served = (args: string[]) => spawnSync(BIN, args, { cwd, encoding: 'utf8', env: baseEnv(home, { HEADSPACE_SERVE: 'require' }) });

describe('relative host paths through headspace serve', () => {
  it("are read and written in the caller's directory", () => {
    writeFileSync(join(cwd, 'in.txt'), 'from the caller\n');
    mkdirSync(join(cwd, 'out'));
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(served(['put', 'w', 'in.txt', 'copied.txt']).status).toBe(0);
    expect(cli(home, ['declare', 'w', 'copied.txt=the copy']).code).toBe(0);
    const exported = served(['export', 'w', 'copied.txt', '--to', 'out/back.txt']);
    expect(exported.stderr).toBe('');
    expect(exported.status).toBe(0);
    expect(readFileSync(join(cwd, 'out', 'back.txt'), 'utf8')).toBe('from the caller\n');
  }, 60_000);
});
