/**
 * The job's resource limits are one fixed table (plan-rlimits.ts) that the
 * job entry sets, whatever the caller of headspace had (red team 2, item 1):
 * every Linux resource appears once; core dumps are off for good (hard 0);
 * RLIMIT_NOFILE's hard limit shares out OPEN_FILES_PER_WORKSPACE over the
 * pids budget so pids × nofile stays at or below it (within the floor and
 * ceiling); NPROC is the pids budget plus bwrap's init; the umask is 022;
 * and the table reaches the shim as `--rlimit` arguments before Landlock.
 */
import { expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { planJobEntry } from '../../../../src/providers/native/plan-job-entry.js';
import {
  NOFILE_HARD_CEILING,
  NOFILE_HARD_FLOOR,
  nofileHard,
  OPEN_FILES_PER_WORKSPACE,
  planRlimits,
  rlimitArgs,
  type RlimitSetting,
} from '../../../../src/providers/native/plan-rlimits.js';

const byName = (table: RlimitSetting[]) => Object.fromEntries(table.map((l) => [l.name, l]));

it('names each of the sixteen Linux resources exactly once, soft never above hard', () => {
  const table = planRlimits({ pidsLimit: 128 });
  const names = table.map((l) => l.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort()).toEqual([
    'AS',
    'CORE',
    'CPU',
    'DATA',
    'FSIZE',
    'LOCKS',
    'MEMLOCK',
    'MSGQUEUE',
    'NICE',
    'NOFILE',
    'NPROC',
    'RSS',
    'RTPRIO',
    'RTTIME',
    'SIGPENDING',
    'STACK',
  ]);
  for (const l of table) if (l.hard !== 'unlimited') expect(l.soft === 'unlimited' ? Infinity : l.soft, l.name).toBeLessThanOrEqual(l.hard);
});

it('turns core dumps, realtime priority and raised priority off for good, and caps stack, locked memory, signals and message queues', () => {
  const limits = byName(planRlimits({ pidsLimit: 128 }));
  for (const name of ['CORE', 'RTPRIO', 'RTTIME', 'NICE']) expect(limits[name], name).toMatchObject({ soft: 0, hard: 0 });
  expect(limits.STACK).toEqual({ name: 'STACK', soft: 8 * 1024 * 1024, hard: 64 * 1024 * 1024 });
  expect(limits.MEMLOCK).toMatchObject({ soft: 64 * 1024, hard: 64 * 1024 });
  expect(limits.SIGPENDING).toMatchObject({ soft: 1024, hard: 1024 });
  expect(limits.MSGQUEUE).toMatchObject({ soft: 819200, hard: 819200 });
});

it('gives a default workspace (128 pids) 1024 open files per process and 129 tasks', () => {
  const limits = byName(planRlimits(defaultPolicy().budget));
  expect(limits.NOFILE).toMatchObject({ soft: 1024, hard: 1024 });
  expect(limits.NPROC).toMatchObject({ soft: 129, hard: 129 });
});

it('keeps pids × open files at or below the workspace bound wherever the floor does not apply', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 65536 }), (pids) => {
      const hard = nofileHard(pids);
      expect(hard).toBeGreaterThanOrEqual(NOFILE_HARD_FLOOR);
      expect(hard).toBeLessThanOrEqual(NOFILE_HARD_CEILING);
      if (pids * NOFILE_HARD_FLOOR <= OPEN_FILES_PER_WORKSPACE) expect(pids * hard).toBeLessThanOrEqual(OPEN_FILES_PER_WORKSPACE);
      const soft = byName(planRlimits({ pidsLimit: pids })).NOFILE!.soft;
      expect(soft).toBe(Math.min(1024, hard));
    }),
    { seed: 20261130, numRuns: 300 },
  );
  expect(nofileHard(16)).toBe(NOFILE_HARD_CEILING);
  expect(nofileHard(65536)).toBe(NOFILE_HARD_FLOOR);
});

it('reaches the shim as --rlimit NAME SOFT HARD and --umask 022, before --landlock', () => {
  const args = rlimitArgs({ pidsLimit: 128 });
  expect(args.slice(0, 4)).toEqual(['--rlimit', 'CORE', '0', '0']);
  expect(args).toContain('unlimited');
  expect(args.slice(-2)).toEqual(['--umask', '022']);
  const entry = planJobEntry({ argv: ['true'], exposures: [], hostPaths: [], budget: { pidsLimit: 128 } });
  expect(entry.slice(1, 1 + args.length)).toEqual(args);
  expect(entry[1 + args.length]).toBe('--landlock');
});
