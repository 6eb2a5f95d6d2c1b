/**
 * pids.max holds a fork bomb (bwrap's own two processes are added to the
 * budget), and nothing a job starts — setsid, double fork, nohup — is alive
 * once run() has returned.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
/** Live (non-zombie) host processes of the workspace's job uid whose command line matches. */
const survivors = (pattern: string) => {
  try {
    return execFileSync('pgrep', ['-u', String(ws.jobUser.uid), '-f', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

const FORK_UNTIL_REFUSED = `
import os, sys
n = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.execvp("sleep", ["sleep", "37.5"])
    n += 1
print(n)
`;

describe.runIf(readiness.ready && process.getuid?.() === 0)(`containment (needs a ready native host as root: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((p) => {
      p.budget.pidsLimit = 32;
    });
  });
  afterAll(async () => ws.dispose());

  it('holds a fork bomb at the pids budget and ends every child with the job', async () => {
    const { outcome, stdout } = await ws.run(['python3', '-c', FORK_UNTIL_REFUSED]);
    expect(outcome.exitCode).toBe(0);
    const forked = Number(stdout.trim());
    expect(forked).toBeGreaterThan(5);
    expect(forked).toBeLessThan(32); // python itself and the sh shim count too
    expect(survivors('sleep 37.5')).toBe('');
  });

  it('leaves nothing behind that the job detached', async () => {
    const { outcome } = await ws.run(['sh', '-c', 'setsid sleep 61.5 & (sh -c "nohup sleep 62.5 >/dev/null 2>&1 &" &) ; echo started']);
    expect(outcome.exitCode).toBe(0);
    expect(survivors('sleep 6[12].5')).toBe('');
  });
});
