/**
 * inherited-limits: a job must start with limits set for it, not with the
 * caller's (red team 2, item 1). Core dumps off, at most 4096 open files and
 * 64 KiB locked memory per process, no realtime priority, a finite stack,
 * process, signal and message-queue limit, and a umask that keeps group and
 * others from writing what the job makes. Any breach is an escape.
 */
import { describe, expect, it } from 'vitest';
import { inheritedLimits } from '../../../../src/core/probe/scenarios-terminals.js';
import { job } from './facts.js';

const OWN = [
  'limit: CORE 0 0',
  'limit: NOFILE 1024 2048',
  'limit: STACK 8388608 67108864',
  'limit: MEMLOCK 65536 65536',
  'limit: NPROC 65 65',
  'limit: RTPRIO 0 0',
  'limit: SIGPENDING 1024 1024',
  'limit: MSGQUEUE 819200 819200',
];
const facts = { callerUmask: 0o002 };
const report = (limits: string[], umask = '022') => `${limits.join('\n')}\numask: ${umask}\nprobe-done\n`;

describe('inherited-limits', () => {
  it('is contained when every limit is the job’s own and the umask holds 022', () => {
    expect(inheritedLimits.judge(job(report(OWN)), facts)).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('NOFILE 1024/2048') });
    expect(inheritedLimits.judge(job(report(OWN, '077')), facts).verdict).toBe('contained');
  });

  it("escapes on the caller's values: unlimited core hard limit, 20000 open files, unlimited stack, 8 MiB locked memory", () => {
    const caller = [
      'limit: CORE 0 -1',
      'limit: NOFILE 20000 20000',
      'limit: STACK -1 -1',
      'limit: MEMLOCK 8388608 8388608',
      'limit: NPROC 96365 96365',
      'limit: RTPRIO 0 0',
      'limit: SIGPENDING 96365 96365',
      'limit: MSGQUEUE 819200 819200',
    ];
    const verdict = inheritedLimits.judge(job(report(caller)), facts);
    expect(verdict.verdict).toBe('escaped');
    for (const part of ['CORE 0/unlimited', 'NOFILE 20000/20000', 'STACK unlimited', 'MEMLOCK 8388608/8388608']) expect(verdict.evidence).toContain(part);
  });

  it("escapes when the caller's umask reaches the job", () => {
    const verdict = inheritedLimits.judge(job(report(OWN, '002')), facts);
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining("umask 002 (the caller's was 002)") });
  });

  it('escapes on realtime priority or an unlimited process limit', () => {
    const rt = OWN.map((l) => (l.startsWith('limit: RTPRIO') ? 'limit: RTPRIO 0 99' : l.startsWith('limit: NPROC') ? 'limit: NPROC -1 -1' : l));
    const verdict = inheritedLimits.judge(job(report(rt)), facts);
    expect(verdict.verdict).toBe('escaped');
    expect(verdict.evidence).toContain('RTPRIO 0/99');
    expect(verdict.evidence).toContain('NPROC unlimited');
  });

  it('is skipped when the job did not report', () => {
    expect(inheritedLimits.judge(job('', 'failure', 127), facts).verdict).toBe('skipped');
    expect(inheritedLimits.judge(job('probe-done\n'), facts).verdict).toBe('skipped');
  });
});
