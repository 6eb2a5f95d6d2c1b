/**
 * The umask is a process's, so a server answers every call with its own: a
 * caller's `umask 077` did not reach the file a served export made, which
 * came out 0644 where in-process it was 0600 (red team, session 11). A server
 * of another umask now goes away instead of answering, as one of another
 * environment does, and the client starts one with the caller's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, callEnv, cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
const out = mkdtempSync(join(tmpdir(), 'hs-serve-umask-'));
afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  await cleanup();
});

/** The bin run under `umask MASK`, served. */
function servedUnder(mask: string, args: string[]): { code: number; stderr: string } {
  const run = spawnSync('/bin/sh', ['-c', `umask ${mask} && exec "$0" "$@"`, BIN, ...args], {
    encoding: 'utf8',
    env: callEnv(home, { HEADSPACE_SERVE: 'require', HEADSPACE_SERVE_IDLE_SECONDS: '60' }),
  });
  return { code: run.status ?? -1, stderr: run.stderr };
}

describe("a served call's files", () => {
  it("get the caller's umask, whatever the umask of the server already running", () => {
    const secret = join(out, 'secret.txt');
    writeFileSync(secret, 'secret');
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['put', 'w', secret, 'secret.txt']).code).toBe(0);
    expect(cli(home, ['declare', 'w', 'secret.txt=a secret']).code).toBe(0);
    // A server started by a caller with umask 022…
    expect(servedUnder('022', ['ls']).code).toBe(0);
    // …does not make the 077 caller's export: it comes out 0600, as in-process.
    const exported = servedUnder('077', ['export', 'w', 'secret.txt', '--to', join(out, 'exported.txt')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect((statSync(join(out, 'exported.txt')).mode & 0o777).toString(8)).toBe('600');
    const loose = servedUnder('022', ['export', 'w', 'secret.txt', '--to', join(out, 'loose.txt')]);
    expect(loose.code, loose.stderr).toBe(0);
    expect((statSync(join(out, 'loose.txt')).mode & 0o777).toString(8)).toBe('644');
  });
});
