/**
 * privilege: contained only when CapEff is 0 inside, every privileged call
 * was refused, and the host saw the job running as a non-zero uid. Without
 * the host's view the verdict is skipped, never contained.
 */
import { describe, expect, it } from 'vitest';
import { privilege } from '../../../../src/core/probe/scenarios-isolation.js';
import { job } from './facts.js';

const refusedAll =
  'status: Uid 600000 600000 600000 600000\nstatus: CapEff 0000000000000000\nrefused: mount(2) tmpfs EPERM\nrefused: unshare -U true exit 1\nprobe-done\n';
const seen = (uid: number) => [{ pid: 42, uids: [uid, uid, uid, uid], capEff: '0000000000000000', command: 'python3 -c', nested: true }];

describe('privilege', () => {
  it('is contained with CapEff 0, every call refused and a non-root host uid', () => {
    expect(privilege.judge(job(refusedAll), { seen: seen(600000) })).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('host uid 600000'),
    });
  });

  it('escapes when the host saw the job as uid 0', () => {
    expect(privilege.judge(job(refusedAll), { seen: seen(0) }).verdict).toBe('escaped');
  });

  it('escapes when a capability is effective inside', () => {
    expect(privilege.judge(job(refusedAll.replace('CapEff 0000000000000000', 'CapEff 00000000a80425fb')), { seen: seen(600000) }).verdict).toBe('escaped');
  });

  it('escapes when a privileged call was allowed', () => {
    expect(privilege.judge(job(`allowed: unshare(CLONE_NEWUSER)\n${refusedAll}`), { seen: seen(600000) }).verdict).toBe('escaped');
  });

  it('is skipped when the host never saw the job', () => {
    expect(privilege.judge(job(refusedAll), { seen: [] }).verdict).toBe('skipped');
  });
});
