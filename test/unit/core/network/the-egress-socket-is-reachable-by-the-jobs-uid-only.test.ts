/**
 * #18 F3: the egress socket was 0666 in a listable /tmp/hs-egress-XXXX, and a
 * `nobody` process got 200 through a running job's proxy. Now its directory
 * is 0700 and, as root, the job uid's, outside /tmp, and the socket is 0600
 * and the job uid's: a process running as another uid cannot connect, the job
 * uid can, and the directory goes with the session's close.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEgressSession, type EgressSession } from '../../../../src/core/network/egress-session.js';

const asRoot = process.getuid?.() === 0;
const JOB = { uid: 600_777, gid: 600_777 };

/** Connects to `path` as `uid` in a child process; 'connected' or the error code. */
function connectAs(uid: number, gid: number, path: string): string {
  const script = `const s=require('net').connect(${JSON.stringify(path)});s.on('connect',()=>{console.log('connected');s.destroy()});s.on('error',e=>console.log(e.code))`;
  const out = spawnSync(process.execPath, ['-e', script], { uid, gid, cwd: '/', encoding: 'utf8', timeout: 10_000 });
  return `${out.stdout}${out.stderr}`.trim();
}

let session: EgressSession | null = null;
let home = '';
afterEach(async () => {
  await session?.close();
  session = null;
  rmSync(home, { recursive: true, force: true });
});

describe.runIf(asRoot)('the egress socket, as root', () => {
  it("refuses a process of another uid, admits the job's uid, and is gone after close", async () => {
    home = mkdtempSync(join(tmpdir(), 'hs-egress-owner-'));
    session = await openEgressSession(['api.test'], { simulated: false, env: {}, socket: { home, workspaceId: 'ws-owner-test', owner: JOB } });
    const path = session.channel.socketPath!;
    expect(path.startsWith('/tmp/')).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(statSync(path).uid).toBe(JOB.uid);
    expect(connectAs(65534, 65534, path)).toBe('EACCES');
    expect(connectAs(600_778, 600_778, path)).toBe('EACCES');
    expect(connectAs(JOB.uid, JOB.gid, path)).toBe('connected');
    await session.close();
    expect(existsSync(dirname(path))).toBe(false);
  });
});
