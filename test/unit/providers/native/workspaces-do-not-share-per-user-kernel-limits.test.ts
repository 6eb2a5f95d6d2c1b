/**
 * As root, each native workspace's jobs run as the uid the engine gave it,
 * and its files belong to that uid, so the kernel's per-user limits
 * (inotify instances, POSIX message-queue bytes, pipe buffer pages) are
 * per workspace: while a job in workspace A holds every inotify instance,
 * message queue and 1 MiB pipe its uid may have, a job in workspace B still
 * gets one of each at full size. A workspace made before per-workspace
 * identities (meta.json without jobUser) keeps running as the legacy 600000.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_JOB_UID } from '../../../../src/core/job-identity.js';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { ASK_SCRIPT, DEFAULT_PIPE_BYTES, HOG_SCRIPT, HOLDING } from '../../../../src/core/probe/scenarios-identity.js';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { makeNativeWorkspace, testJobUser, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready && process.getuid?.() === 0)(`per-workspace job uids (needs a ready native host as root: ${readiness.reason})`, () => {
  let a: NativeFixture;
  let b: NativeFixture;
  let sameUid: NativeFixture;
  beforeAll(async () => {
    a = await makeNativeWorkspace();
    const next = a.jobUser.uid === 665_535 ? 665_534 : a.jobUser.uid + 1;
    b = await makeNativeWorkspace(() => undefined, { jobUser: { uid: next, gid: next } });
    sameUid = await makeNativeWorkspace(() => undefined, { jobUser: a.jobUser });
  });
  afterAll(async () => {
    for (const ws of [a, b, sameUid]) await ws?.dispose();
  });

  it("runs each workspace's jobs as its own uid and owns its files by it", async () => {
    const data = Buffer.from('put by the host\n');
    await a.provider.write(a.workspaceId, 'dir/put.txt', data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: false });
    const seen = await a.run(['sh', '-c', 'id -u; id -g; touch made.txt; stat -c %u:%g /workspace /workspace/dir /workspace/dir/put.txt /workspace/made.txt']);
    const own = `${a.jobUser.uid}:${a.jobUser.gid}`;
    expect(seen.stdout.trim().split('\n')).toEqual([String(a.jobUser.uid), String(a.jobUser.gid), own, own, own, own]);
    expect((await b.run(['id', '-u'])).stdout.trim()).toBe(String(b.jobUser.uid));
  });

  // The image root is 0700 (workspace-filesystem.ts): with a uid per workspace, a job that reached
  // another workspace's host path (an inherited descriptor, #10 item 1) still cannot read its files.
  it("keeps a workspace's files from another workspace's uid even through the host path", async () => {
    const data = Buffer.from('private\n');
    await a.provider.write(a.workspaceId, 'private.txt', data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: true });
    const base = join('/run/headspace-native', layoutOf(a.root).cgroupName('').replace(/-$/, ''));
    const hostPath = readiness.ownFilesystem ? join(base, 'fs', a.workspaceId, 'private.txt') : join(layoutOf(a.root).filesDir(a.workspaceId), 'private.txt');
    const as = (user: { uid: number; gid: number }) =>
      spawnSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', 'cat', hostPath], { encoding: 'utf8' });
    expect(as(a.jobUser).stdout).toBe('private\n');
    const other = as(b.jobUser);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(/Permission denied/);
  });

  it('leaves another workspace its inotify instances, message queues and pipe pages while one holds all of its own', async () => {
    const hogCancel = new AbortController();
    let hogOut = '';
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const hog = a.provider.run({
      workspaceId: a.workspaceId,
      jobId: `job-${randomBytes(4).toString('hex')}`,
      argv: ['python3', '-c', HOG_SCRIPT],
      env: {},
      policy: a.policy,
      onOutput: (_stream, chunk) => {
        hogOut += chunk.toString();
        if (hogOut.includes(HOLDING)) holding();
      },
      signal: hogCancel.signal,
    });
    await Promise.race([held, hog]);
    try {
      // Where Landlock is active it refuses POSIX message queues to every job (EACCES): then only inotify and pipes are shared limits.
      expect(hogOut).toMatch(/holding: inotify=\d+\/EMFILE mqueue=\d+\/(EMFILE|EACCES) pipes=\d+\/EPERM/);
      const mqueues = /mqueue=\d+\/EMFILE/.test(hogOut);
      const asked = await b.run(['python3', '-c', ASK_SCRIPT]);
      expect(asked.stdout).toContain('inotify: ok');
      expect(asked.stdout).toContain(mqueues ? 'mqueue: ok' : 'mqueue: EACCES');
      expect(asked.stdout).toContain(`pipe: ${DEFAULT_PIPE_BYTES}`);
      // The control: a workspace given A's uid (as every workspace had before) is starved by the same hog.
      const shared = await sameUid.run(['python3', '-c', ASK_SCRIPT]);
      expect(shared.stdout).toContain('inotify: EMFILE');
      if (mqueues) expect(shared.stdout).toContain('mqueue: EMFILE');
      expect(shared.stdout).not.toContain(`pipe: ${DEFAULT_PIPE_BYTES}`);
    } finally {
      hogCancel.abort();
      await hog;
    }
  });

  it('keeps a workspace made before per-workspace identities on the legacy uid', async () => {
    // Files in a host directory here, so the test can give them to 600000 as an older version had.
    const legacy = await makeNativeWorkspace(() => undefined, { storage: 'host-directory', rootMode: 0o711 });
    try {
      const layout = layoutOf(legacy.root);
      const meta = JSON.parse(readFileSync(layout.metaPath(legacy.workspaceId), 'utf8')) as Record<string, unknown>;
      expect(meta.jobUser).toEqual(legacy.jobUser);
      delete meta.jobUser;
      writeFileSync(layout.metaPath(legacy.workspaceId), JSON.stringify(meta));
      chownSync(layout.filesDir(legacy.workspaceId), LEGACY_JOB_UID, LEGACY_JOB_UID);
      // A fresh instance, as a later process after the upgrade would be.
      const later = createNativeProvider({ root: legacy.root });
      let out = '';
      const outcome = await later.run({ ...baseRequest(legacy), argv: ['id', '-u'], onOutput: (_s, c) => (out += c.toString()) });
      expect(outcome.exitCode).toBe(0);
      expect(out.trim()).toBe(String(LEGACY_JOB_UID));
    } finally {
      await legacy.dispose();
    }
  });

  it('refuses to create a workspace as root, or as the legacy shared uid', async () => {
    const provider = createNativeProvider({ root: a.root });
    for (const jobUser of [
      { uid: 0, gid: 0 },
      { uid: LEGACY_JOB_UID, gid: LEGACY_JOB_UID },
      { uid: testJobUser().uid, gid: 0 },
    ]) {
      await expect(
        provider.create({ workspaceId: `bad-${randomBytes(3).toString('hex')}`, policy: defaultPolicy(), profile: 'host', jobUser }),
      ).rejects.toMatchObject({ code: 'PROVIDER_FAILURE' });
    }
  });
});

function baseRequest(ws: NativeFixture) {
  return {
    workspaceId: ws.workspaceId,
    jobId: `job-${randomBytes(4).toString('hex')}`,
    argv: ['true'],
    env: {},
    policy: ws.policy,
    onOutput: () => undefined,
    signal: new AbortController().signal,
  };
}
