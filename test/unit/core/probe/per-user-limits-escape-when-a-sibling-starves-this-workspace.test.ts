/**
 * The per-user-limits judge: the probe's job escapes when a sibling
 * workspace holding its share of inotify instances, message queues and pipe
 * pages left this workspace without one (EMFILE, ENOSPC, a shrunken pipe),
 * or when both jobs run as the same host uid; it is skipped, never
 * contained, when either job did not report.
 */
import { describe, expect, it } from 'vitest';
import { perUserLimits } from '../../../../src/core/probe/scenarios-identity.js';
import { job } from './facts.js';

const hog = (uid: number) => job(`id: ${uid}\nholding: inotify=128/EMFILE mqueue=9/EMFILE pipes=64/EPERM\n`, 'cancelled', null);
const asked = (uid: number, inotify = 'ok', mqueue = 'ok', pipe = 65536) =>
  job(`id: ${uid}\ninotify: ${inotify}\nmqueue: ${mqueue}\npipe: ${pipe}\nprobe-done\n`);

describe('per-user-limits judge', () => {
  it('is contained when this workspace got one of each under its own uid while the sibling held its share', () => {
    const verdict = perUserLimits.judge(asked(600002), { hog: hog(600001), holding: true });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('uid 600001') });
  });

  it('escapes when inotify_init1 or mq_open was refused', () => {
    expect(perUserLimits.judge(asked(600002, 'EMFILE'), { hog: hog(600001), holding: true })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('inotify refused (EMFILE)'),
    });
    expect(perUserLimits.judge(asked(600002, 'ok', 'ENOSPC'), { hog: hog(600001), holding: true })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('mqueue refused (ENOSPC)'),
    });
  });

  it('escapes when a new pipe was shrunk below the default capacity', () => {
    expect(perUserLimits.judge(asked(600002, 'ok', 'ok', 8192), { hog: hog(600001), holding: true })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('8192 bytes'),
    });
  });

  it('escapes when both jobs run as the same host uid even if nothing was refused', () => {
    expect(perUserLimits.judge(asked(600000), { hog: hog(600000), holding: true })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('host uid 600000'),
    });
  });

  it('is skipped when the sibling never reported holding its resources', () => {
    expect(perUserLimits.judge(asked(600002), { hog: job('id: 600001\n', 'infrastructure_failure', null), holding: false }).verdict).toBe('skipped');
    expect(perUserLimits.judge(asked(600002), { hog: hog(600001), holding: false }).verdict).toBe('skipped');
  });

  it('is skipped when this workspace never reported', () => {
    expect(perUserLimits.judge(job('id: 600002\n', 'success', 1), { hog: hog(600001), holding: true }).verdict).toBe('skipped');
    expect(perUserLimits.judge(job('', 'success', 127), { hog: hog(600001), holding: true }).verdict).toBe('skipped');
  });
});
