/**
 * syscall-allow-list: each call must come back with the filter's own
 * answer (EPERM, ENOSYS, EAFNOSUPPORT). A call that succeeded escaped; a
 * call that failed with any other errno reached the kernel, so the filter
 * let it through, and escaped too. sync() answers success either way, so
 * it escapes when the host's Dirty pages fell by at least half of what the
 * job had just written, and is reported as not observed (never as
 * contained) when Dirty cannot show it. No reported call means skipped.
 */
import { describe, expect, it } from 'vitest';
import { syscallAllowList } from '../../../../src/core/probe/scenarios-kernel.js';
import { job } from './facts.js';

const refusedAll = [
  'call: kcmp(self, self, KCMP_VM) err EPERM',
  'call: mseal(new page) err ENOSYS',
  'call: ioctl(TIOCSTI) on its tty err EPERM',
  'skip: modify_ldt(read) not on aarch64',
  'probe-done',
  '',
].join('\n');

const synced = (before: number, after: number, ms = 0.1) => `sync: returned 0 in ${ms} ms; Dirty ${before} -> ${after} kB after writing 16384 kB\n`;

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

  it('escapes when sync wrote back the dirty pages the job had made', () => {
    const judgement = syscallAllowList.judge(job(synced(25104, 60, 121) + refusedAll), {});
    expect(judgement.verdict).toBe('escaped');
    expect(judgement.evidence).toContain("sync() wrote back the host's dirty pages (Dirty 25104 -> 60 kB in 121 ms)");
    expect(judgement.lines).toContain('sync: returned 0 in 121 ms; Dirty 25104 -> 60 kB after writing 16384 kB');
  });

  it('is contained when sync returned without writing back, and says so', () => {
    expect(syscallAllowList.judge(job(synced(19444, 19400) + refusedAll), {})).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('sync() returned 0 in 0.1 ms and wrote nothing back'),
    });
  });

  it('reports sync as not observed when Dirty could not show a write-back', () => {
    for (const [output, reason] of [
      [synced(-1, -1), '/proc/meminfo unreadable'],
      [synced(4000, 10), 'only 4000 kB dirty before the call'],
      ['sync: not observable: No space left on device\n', 'not observable: No space left on device'],
      ['', 'no report'],
    ] as const) {
      const judgement = syscallAllowList.judge(job(output + refusedAll), {});
      expect(judgement.verdict, reason).toBe('contained');
      expect(judgement.evidence).toContain(`sync not observed (${reason}`);
    }
  });

  it('is skipped when nothing was reported', () => {
    expect(syscallAllowList.judge(job('probe-done\n'), {}).verdict).toBe('skipped');
    expect(syscallAllowList.judge(job('call: kcmp err EPERM\n', 'timeout', null), {}).verdict).toBe('skipped');
  });
});
