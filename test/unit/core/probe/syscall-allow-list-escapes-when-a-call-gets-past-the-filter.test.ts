/**
 * syscall-allow-list: each call must come back with the filter's own
 * answer (EPERM, ENOSYS, EAFNOSUPPORT). A call that succeeded escaped; a
 * call that failed with any other errno reached the kernel, so the filter
 * let it through, and escaped too. No reported call means skipped.
 */
import { describe, expect, it } from 'vitest';
import { syscallAllowList } from '../../../../src/core/probe/scenarios-kernel.js';
import { job } from './facts.js';

const refusedAll = ['call: kcmp(self, self, KCMP_VM) err EPERM', 'call: mseal(new page) err ENOSYS', 'call: ioctl(TIOCSTI) on its tty err EPERM', 'skip: modify_ldt(read) not on aarch64', 'probe-done', ''].join('\n');

describe('syscall-allow-list', () => {
  it('is contained when every call got the filter answer', () => {
    expect(syscallAllowList.judge(job(refusedAll), {})).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('3 calls refused') });
  });

  it('escapes when a call succeeded, naming it', () => {
    const judgement = syscallAllowList.judge(job(`call: memfd_secret ok 4\n${refusedAll}`), {});
    expect(judgement.verdict).toBe('escaped');
    expect(judgement.evidence).toContain('memfd_secret succeeded');
  });

  it('escapes when a call reached the kernel and failed there', () => {
    const judgement = syscallAllowList.judge(job(`call: ioctl(TIOCLINUX) on its tty err ENOTTY\n${refusedAll}`), {});
    expect(judgement.verdict).toBe('escaped');
    expect(judgement.evidence).toContain('reached the kernel (ENOTTY)');
  });

  it('is skipped when nothing was reported', () => {
    expect(syscallAllowList.judge(job('probe-done\n'), {}).verdict).toBe('skipped');
    expect(syscallAllowList.judge(job('call: kcmp err EPERM\n', 'timeout', null), {}).verdict).toBe('skipped');
  });
});
