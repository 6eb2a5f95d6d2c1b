/**
 * planRepairs is pure: a diagnosis in, repairs out. A repair is safe only
 * when the facts prove it and nothing alive depends on it; anything else is
 * a judgement call carrying its reason. Nothing of a workspace with a live
 * job or operation is touched; a workspace folder that may hold files, and a
 * destroy cut short, are never repaired by doctor.
 */
import { describe, expect, it } from 'vitest';
import { planRepairs, type Diagnosis, type WorkspaceFacts } from '../../../../src/core/repair/plan-repairs.js';
import type { IntentRecord } from '../../../../src/core/store/sqlite-store.js';

const dead = { pid: 4_000_000, started: '1' };
const ws = (patch: Partial<WorkspaceFacts> = {}): WorkspaceFacts => ({
  state: 'ready',
  provider: 'fake',
  view: 'ready',
  environmentDigest: 'sha256:x',
  unexportedArtifacts: [],
  ...patch,
});
const intent = (patch: Partial<IntentRecord>): IntentRecord => ({
  id: 1,
  workspaceId: 'w',
  jobId: null,
  op: 'put',
  provider: 'fake',
  owner: dead,
  createdAt: 0,
  settledAt: null,
  outcome: null,
  target: null,
  ...patch,
});
const diagnosis = (patch: Partial<Diagnosis>): Diagnosis => ({
  workspaces: { w: ws() },
  busy: {},
  deadIntents: [],
  orphanJobs: [],
  leftovers: [],
  strayLogs: [],
  liveExportDestinations: [],
  ...patch,
});

describe('planRepairs', () => {
  it('finishes a job whose process is gone as infrastructure_failure, or cancelled when a stop was asked, settling its intent with it', () => {
    const [r1] = planRepairs(
      diagnosis({
        orphanJobs: [{ id: 'j1', workspaceId: 'w', ownerPid: 7, stopRequested: false, intentIds: [3] }],
        deadIntents: [{ intent: intent({ id: 3, op: 'run', jobId: 'j1' }), job: { state: 'running', status: null, ownerAlive: false } }],
      }),
    );
    expect(r1).toMatchObject({
      kind: 'finish-job',
      safe: true,
      action: { type: 'finish-job', status: 'infrastructure_failure', intentIds: [3], stopAtProvider: true },
    });
    const [r2] = planRepairs(diagnosis({ orphanJobs: [{ id: 'j1', workspaceId: 'w', ownerPid: 7, stopRequested: true, intentIds: [] }] }));
    expect(r2?.action).toMatchObject({ status: 'cancelled' });
    expect((r2?.action as { note: string }).note).toContain('pid 7');
  });

  it('leaves a job alone when the provider cannot be asked whether it still runs', () => {
    const [r] = planRepairs(
      diagnosis({ workspaces: { w: ws({ view: 'unknown' }) }, orphanJobs: [{ id: 'j1', workspaceId: 'w', ownerPid: 7, stopRequested: false, intentIds: [] }] }),
    );
    expect(r).toMatchObject({ safe: false });
    expect(r?.reason).toContain('could not be asked');
  });

  it('settles a create by what the provider holds: ready when it has the workspace, failed when it has not', () => {
    const held = planRepairs(diagnosis({ workspaces: { w: ws({ state: 'provisioning' }) }, deadIntents: [{ intent: intent({ op: 'create' }) }] }));
    expect(held[0]).toMatchObject({ safe: true, action: { moveWorkspace: { to: 'ready' } } });
    const lost = planRepairs(
      diagnosis({ workspaces: { w: ws({ state: 'provisioning', view: 'missing' }) }, deadIntents: [{ intent: intent({ op: 'create' }) }] }),
    );
    expect(lost[0]).toMatchObject({ safe: true, action: { moveWorkspace: { to: 'failed' } } });
  });

  it('records an export only when the published file has the artifact digest, and removes its temporary files', () => {
    const exportOf = (sha: string | null, exists = true) => ({
      name: 'a.txt',
      to: '/tmp/a.txt',
      destination: { exists, sha256: sha, size: 3 },
      workspaceSha256: 'aaa',
      partials: ['/tmp/.a.txt.headspace-0123456789ab.partial'],
    });
    const proven = planRepairs(diagnosis({ deadIntents: [{ intent: intent({ op: 'export' }), export: exportOf('aaa') }] }));
    expect(proven.map((r) => [r.kind, r.safe])).toEqual([
      ['remove-temporary-file', true],
      ['settle-intent', true],
    ]);
    expect(proven[1]?.action).toMatchObject({ recordExport: { name: 'a.txt', sha256: 'aaa' } });
    const other = planRepairs(diagnosis({ deadIntents: [{ intent: intent({ op: 'export' }), export: exportOf('bbb') }] }));
    expect(other[1]?.action).not.toHaveProperty('recordExport');
    expect(other[1]?.reason).toContain('leave it untouched');
    const live = planRepairs(
      diagnosis({ liveExportDestinations: ['/tmp/a.txt'], deadIntents: [{ intent: intent({ op: 'export' }), export: exportOf(null, false) }] }),
    );
    expect(live[0]).toMatchObject({ kind: 'remove-temporary-file', safe: false });
  });

  it('never finishes a destroy cut short: it is a judgement call naming destroy, and force when artifacts were never exported', () => {
    const [r] = planRepairs(
      diagnosis({ workspaces: { w: ws({ view: 'missing', unexportedArtifacts: ['report.json'] }) }, deadIntents: [{ intent: intent({ op: 'remove' }) }] }),
    );
    expect(r).toMatchObject({ safe: false });
    expect(r?.reason).toContain('destroy it again, with force');
    expect(r?.reason).toContain("'report.json'");
  });

  it('touches nothing of a workspace a live process is acting on', () => {
    const repairs = planRepairs(
      diagnosis({
        busy: { w: 'job j9 (process 5)' },
        deadIntents: [{ intent: intent({ op: 'put', target: 'x' }), inputRecorded: false }],
        leftovers: [{ provider: 'native', leftover: { kind: 'process', workspaceId: 'w', target: 'tag-w', detail: 'processes 9' } }],
      }),
    );
    expect(repairs.every((r) => !r.safe)).toBe(true);
    expect(repairs.every((r) => r.reason.includes('job j9'))).toBe(true);
  });

  it('removes a workspace folder only when the workspace never became ready and holds no unexported artifact', () => {
    const folder = {
      provider: 'native',
      leftover: { kind: 'directory' as const, workspaceId: 'w', target: '/h/native/workspaces/w', detail: 'folder without meta.json' },
    };
    expect(planRepairs(diagnosis({ workspaces: { w: ws({ state: 'failed', view: 'missing' }) }, leftovers: [folder] }))[0]?.safe).toBe(true);
    expect(planRepairs(diagnosis({ workspaces: { w: ws({ state: 'ready', view: 'missing' }) }, leftovers: [folder] }))[0]?.safe).toBe(false);
    expect(
      planRepairs(diagnosis({ workspaces: { w: ws({ state: 'failed', view: 'missing', unexportedArtifacts: ['r'] }) }, leftovers: [folder] }))[0]?.safe,
    ).toBe(false);
  });

  it("removes at a provider only a workspace whose record is destroyed or is a later one's elsewhere, and never one with no record or a live process on it", () => {
    const held = (record: 'destroyed' | 'elsewhere' | 'none') => ({
      provider: 'docker',
      workspaceId: 'h',
      record,
      ...(record === 'elsewhere' ? { recordedOn: 'fake' } : {}),
    });
    const planned = (record: 'destroyed' | 'elsewhere' | 'none', busy: Record<string, string> = {}) =>
      planRepairs(diagnosis({ untracked: [held(record)], busy }))[0]!;
    expect(planned('destroyed')).toMatchObject({ safe: true, action: { type: 'remove-workspace', provider: 'docker', workspaceId: 'h' } });
    expect(planned('elsewhere')).toMatchObject({ safe: true, reason: expect.stringContaining('the store records h on the fake provider now') });
    expect(planned('none')).toMatchObject({ safe: false, action: { type: 'none' }, reason: expect.stringContaining("this home's store has no record") });
    expect(planned('destroyed', { h: 'a checkpoint (process 7)' })).toMatchObject({ safe: false, action: { type: 'none' } });
  });
});
