/**
 * The native provider reports what a killed operation left — a cgroup of a
 * workspace it no longer holds (with a process still in it), a process in
 * the cgroup of a workspace that runs no job, a job marker whose owner is
 * gone, the generated runtime files of a workspace whose folder is gone —
 * and removes each on request, re-checking first (the last one lets the
 * mount base go with it). A workspace's own live cgroup and files are never
 * listed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { makeNativeWorkspace, waitForReclaim, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready && process.getuid?.() === 0)(`native leftovers (needs a ready native host as root: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace();
    await ws.run(['true']); // the cgroup exists and has run a job
  });
  afterAll(async () => ws.dispose());

  it('lists nothing for a healthy, idle workspace', async () => {
    expect(await ws.provider.leftovers!()).toEqual([]);
  });

  it('finds a stray process and a stale job marker, and removes them', async () => {
    const layout = layoutOf(ws.root);
    const procs = `/sys/fs/cgroup/pids/headspace/${layout.cgroupName(ws.workspaceId)}/cgroup.procs`;
    const stray = spawn('/bin/sh', ['-c', `echo $$ > ${procs}; exec sleep 77.5`], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(layout.jobPath(ws.workspaceId), JSON.stringify({ jobId: 'job-dead', ownerPid: 2 ** 22 - 5, startedAt: '' }));
    const found = await ws.provider.leftovers!();
    expect(found.map((l) => l.kind).sort()).toEqual(['file', 'process']);
    expect(found.find((l) => l.kind === 'process')?.detail).toContain(String(stray.pid));
    for (const l of found) await ws.provider.removeLeftover!(l);
    expect(await ws.provider.leftovers!()).toEqual([]);
    expect(stray.exitCode !== null || stray.signalCode !== null || (await new Promise((r) => stray.once('exit', () => r(true))))).toBeTruthy();
  });

  it('finds the cgroup, bind mount and folder of a workspace it no longer holds, and removes them', async () => {
    const other = await makeNativeWorkspace();
    await other.run(['true']);
    const layout = layoutOf(other.root);
    rmSync(layout.metaPath(other.workspaceId)); // a create or removal cut short: meta.json is written first-last, removed first
    const provider = createNativeProvider({ root: other.root });
    const found = await provider.leftovers!();
    const kinds = found
      .filter((l) => l.workspaceId === other.workspaceId)
      .map((l) => l.kind)
      .sort();
    // The root is a 0700 temp dir, so the files dir was bind-mounted for the job uid.
    expect([...new Set(kinds)], JSON.stringify(found)).toEqual(['cgroup', 'directory', 'mount']); // a storage image adds its own mount
    for (const l of found) await provider.removeLeftover!(l);
    // A loop device on a deleted image detaches by itself once the kernel lets go of it: give it a moment.
    let left = await provider.leftovers!();
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await provider.leftovers!();
    }
    expect(left.filter((l) => !/loop device .* deleted image/.test(l.detail))).toEqual([]);
    expect(existsSync(layout.workspaceDir(other.workspaceId))).toBe(false);
    rmSync(join(other.root), { recursive: true, force: true });
  });

  it('finds generated runtime files whose workspace folder is gone, and the mount base goes with them', async () => {
    const other = await makeNativeWorkspace();
    await other.provider.remove(other.workspaceId);
    await waitForReclaim(other.root, other.workspaceId);
    const base = join('/run/headspace-native', layoutOf(other.root).cgroupName('').replace(/-$/, ''));
    expect(existsSync(base)).toBe(false);
    // A create killed after writing them, whose folder doctor already removed.
    const orphan = join(base, 'runtime', other.workspaceId);
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, 'passwd'), 'agent:x:1:1::/tmp:/bin/sh\n');
    const provider = createNativeProvider({ root: other.root });
    const found = await provider.leftovers!();
    expect(found).toEqual([expect.objectContaining({ kind: 'directory', workspaceId: other.workspaceId, target: orphan })]);
    await provider.removeLeftover!(found[0]!);
    expect(existsSync(base)).toBe(false);
    expect(await provider.leftovers!()).toEqual([]);
    rmSync(other.root, { recursive: true, force: true });
  });
});
