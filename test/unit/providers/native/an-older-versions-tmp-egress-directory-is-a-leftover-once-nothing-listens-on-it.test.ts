/**
 * #18 follow-up: older versions put every job's egress socket in
 * /tmp/hs-egress-XXXXXX, and a crashed proxy left the directory behind. Its
 * name names no process, so doctor judges it by its socket: a directory is a
 * leftover (listed, removed by the repair) only once nothing listens on its
 * socket; one whose socket a live process holds, one too young to have
 * bound yet, one with anything else in it and a link are never touched.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeLeftovers } from '../../../../src/providers/native/leftovers.js';
import { layoutOf } from '../../../../src/providers/native/layout.js';

const made: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const p of made.splice(0)) rmSync(p, { recursive: true, force: true });
});

const old = (path: string) => utimesSync(path, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));

/** A socket whose process was killed (-9): the file stays, nothing listens — what a crashed proxy leaves. */
async function deadSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

describe('an older version’s /tmp/hs-egress directory', () => {
  it('is a leftover once nothing listens on its socket, and the repair removes only that one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hs-egress-tmpleft-'));
    made.push(root);
    const tmp = join(root, 'tmp');
    mkdirSync(tmp);
    const dir = (name: string) => {
      const d = join(tmp, `hs-egress-${name}`);
      mkdirSync(d, { mode: 0o700 });
      return d;
    };
    const dead = dir('Dead01');
    await deadSocket(join(dead, 'egress.sock'));
    old(dead);
    const empty = dir('Empty1'); // a proxy that died before it bound
    old(empty);
    const live = dir('Live01');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(live, 'egress.sock'), resolve));
    old(live);
    const young = dir('Young1');
    await deadSocket(join(young, 'egress.sock'));
    const other = dir('Other1');
    writeFileSync(join(other, 'notes.txt'), 'not a proxy’s');
    old(other);
    symlinkSync(dead, join(tmp, 'hs-egress-Link01'));

    const sweeper = nativeLeftovers({
      layout: layoutOf(join(root, 'native')),
      mountBase: join(root, 'no-mount-base'),
      driver: async () => undefined,
      killTimeoutMs: 1000,
      stateHome: join(root, 'home'),
      tmpDir: tmp,
    });
    const found = (await sweeper.list()).filter((l) => l.target.startsWith(tmp));
    expect(found.map((l) => l.target)).toEqual([dead, empty]);
    expect(found[0]).toMatchObject({ kind: 'directory', workspaceId: null, detail: expect.stringContaining('nothing listens') });
    for (const leftover of found) await sweeper.remove(leftover);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(empty)).toBe(false);
    for (const kept of [live, young, other]) expect(existsSync(kept)).toBe(true);
    expect(lstatSync(join(tmp, 'hs-egress-Link01')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(live, 'egress.sock'))).toBe(true);

    // A socket that came to life between the listing and the repair keeps its directory.
    const revived = dir('Reviv1');
    await deadSocket(join(revived, 'egress.sock'));
    old(revived);
    const [listed] = (await sweeper.list()).filter((l) => l.target === revived);
    rmSync(join(revived, 'egress.sock'));
    const again = createServer();
    servers.push(again);
    await new Promise<void>((resolve) => again.listen(join(revived, 'egress.sock'), resolve));
    await sweeper.remove(listed!);
    expect(existsSync(join(revived, 'egress.sock'))).toBe(true);
  });
});
