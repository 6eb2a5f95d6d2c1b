/**
 * A library caller running jobs in a native workspace of `--concurrency 2`
 * (#12 item 8) keeps a standby launcher per job slot, placed in that slot's
 * own child cgroup, so jobs at once cost no more than one at a time: after
 * two jobs in a slot its child holds one idle launcher and nothing else; it
 * is no job (an idle stop stops nothing); two jobs at once beside it each get
 * their own output; and removing the workspace leaves no process behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { isIdleLauncher } from '../../../../src/providers/native/launch-job.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const V1 = '/sys/fs/cgroup/pids/headspace';

function pidsIn(dir: string): number[] {
  return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

describe.runIf(readiness.ready && existsSync(V1))(`job slot standbys (needs a ready cgroup v1 native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((p) => (p.budget.concurrency = 2));
  });
  afterAll(async () => ws.dispose());

  it('keeps one idle launcher in the slot child, which is no job, and runs two jobs at once beside it', async () => {
    const slot0 = join(V1, layoutOf(ws.root).jobCgroupName(ws.workspaceId, 0));
    for (let i = 0; i < 2; i++) expect((await ws.run(['true'])).outcome.exitCode).toBe(0);
    let standing: number[] = [];
    for (let i = 0; i < 50 && standing.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      standing = pidsIn(slot0);
    }
    expect(standing).toHaveLength(1);
    expect(isIdleLauncher(standing[0]!)).toBe(true);
    expect(await ws.provider.stop(ws.workspaceId, { graceMs: 0 })).toEqual({ stopped: false, empty: true });
    const [a, b] = await Promise.all([ws.run(['sh', '-c', 'sleep 0.3; echo first']), ws.run(['sh', '-c', 'sleep 0.3; echo second'])]);
    expect([a.stdout, b.stdout]).toEqual(['first\n', 'second\n']);
    expect([a.outcome.exitCode, b.outcome.exitCode]).toEqual([0, 0]);
  });

  it('leaves no process behind when the workspace is removed', async () => {
    const dir = join(V1, layoutOf(ws.root).cgroupName(ws.workspaceId));
    await ws.provider.remove(ws.workspaceId);
    expect(existsSync(dir)).toBe(false);
  });
});
