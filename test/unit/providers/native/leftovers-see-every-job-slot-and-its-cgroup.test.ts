/**
 * With jobs at once (#12 item 8) a native workspace keeps one marker per job
 * slot (job.json, job-<k>.json) and one child cgroup per slot. doctor's
 * leftovers see all of them: a stale job-1.json is a leftover, a stray
 * process in a slot's child cgroup of a workspace that runs no job is a
 * leftover (and removing it kills it), a live marker in any slot keeps the
 * workspace's processes and files off the list, and removing the workspace
 * removes its job children with it.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { currentOwner } from '../../../../src/core/store/owner.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const V1 = '/sys/fs/cgroup/pids/headspace';

describe.runIf(readiness.ready && process.getuid?.() === 0 && existsSync(V1))(
  `native leftovers with job slots (needs a ready cgroup v1 native host as root: ${readiness.reason})`,
  () => {
    let ws: NativeFixture;
    beforeAll(async () => {
      ws = await makeNativeWorkspace((p) => (p.budget.concurrency = 2));
      // Two jobs at once: both slots' child cgroups exist afterwards.
      await Promise.all([ws.run(['sleep', '0.3'], { jobId: 'job-a' }), ws.run(['sleep', '0.3'], { jobId: 'job-b' })]);
    });
    afterAll(async () => ws.dispose());

    it('finds a stale slot marker and a stray process in a slot cgroup, and removes both', async () => {
      const layout = layoutOf(ws.root);
      const slotDir = join(V1, layout.jobCgroupName(ws.workspaceId, 1));
      expect(existsSync(slotDir)).toBe(true);
      expect(await ws.provider.leftovers!()).toEqual([]);
      const stray = spawn('/bin/sh', ['-c', `echo $$ > ${slotDir}/cgroup.procs; exec sleep 77.5`], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 200));
      writeFileSync(join(layout.workspaceDir(ws.workspaceId), 'job-1.json'), JSON.stringify({ jobId: 'job-dead', ownerPid: 2 ** 22 - 5, startedAt: '' }));
      const found = await ws.provider.leftovers!();
      expect(found.map((l) => l.kind).sort()).toEqual(['file', 'process']);
      expect(found.find((l) => l.kind === 'file')?.target).toMatch(/job-1\.json$/);
      expect(found.find((l) => l.kind === 'process')?.detail).toContain(String(stray.pid));
      for (const l of found) await ws.provider.removeLeftover!(l);
      expect(await ws.provider.leftovers!()).toEqual([]);
      expect(stray.exitCode !== null || stray.signalCode !== null || (await new Promise((r) => stray.once('exit', () => r(true))))).toBeTruthy();
    });

    it('lists nothing of a workspace whose second slot holds a live job', async () => {
      const layout = layoutOf(ws.root);
      const slotDir = join(V1, layout.jobCgroupName(ws.workspaceId, 1));
      const busy = spawn('/bin/sh', ['-c', `echo $$ > ${slotDir}/cgroup.procs; exec sleep 77.5`], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 200));
      const marker = join(layout.workspaceDir(ws.workspaceId), 'job-1.json');
      writeFileSync(
        marker,
        JSON.stringify({
          jobId: 'job-live',
          ownerPid: process.pid,
          ownerStarted: currentOwner().started,
          startedAt: '',
          cgroup: layout.jobCgroupName(ws.workspaceId, 1),
        }),
      );
      try {
        expect(await ws.provider.leftovers!()).toEqual([]);
        // stop --job-id reaches that slot's cgroup alone.
        expect(await ws.provider.stop(ws.workspaceId, { jobId: 'job-live', graceMs: 0 })).toEqual({ stopped: true, empty: true });
        expect(busy.exitCode !== null || busy.signalCode !== null || (await new Promise((r) => busy.once('exit', () => r(true))))).toBeTruthy();
      } finally {
        busy.kill('SIGKILL');
        rmSync(marker, { force: true });
        rmSync(layout.stopSentinelPath(ws.workspaceId, 'job-live'), { force: true });
      }
    });

    it('removes the job children with the workspace', async () => {
      const layout = layoutOf(ws.root);
      const disposition = await ws.provider.remove(ws.workspaceId);
      expect(disposition.removed).toContain('runtime');
      expect(existsSync(join(V1, layout.cgroupName(ws.workspaceId)))).toBe(false);
    });
  },
);
