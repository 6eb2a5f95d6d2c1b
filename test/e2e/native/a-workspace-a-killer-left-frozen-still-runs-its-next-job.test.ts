/**
 * On cgroup v1 a kill freezes the job's cgroup in rounds (freeze, SIGKILL,
 * thaw). The wall clock's kill ran unawaited, so a CLI that reported a
 * timeout and exited mid-round left the workspace FROZEN (3 of 12 timeouts,
 * measured); the next job's launcher froze as it placed itself and the job
 * failed at its own wall clock as infrastructure_failure (exit 7), a flake of
 * the resource-abuse suite in CI. Now a run returns only once its kills are
 * done, and a job cgroup found frozen (a killer SIGKILLed between FROZEN and
 * THAWED) is thawed before the next job is placed in it. cgroup v2 kills
 * with cgroup.kill and freezes nothing, so these run on v1 only.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
const WS = 'frozen';
const tag = createHash('sha256').update(join(home, 'native')).digest('hex').slice(0, 10);
const freezerState = `/sys/fs/cgroup/freezer/headspace/${tag}-${WS}/freezer.state`;

afterAll(async () => {
  cli(home, ['destroy', WS, '--force'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`a workspace's freezer on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('is created with a one-second wall clock and runs a first job', () => {
    expect(cli(home, ['create', '--workspace-id', WS, '--wall-clock-seconds', '1'], env).code).toBe(0);
    const r = cli(home, ['run', WS, 'true'], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
  });

  it('is thawed after every wall-clock timeout of a job that ignores SIGTERM', { timeout: 60_000 }, (ctx) => {
    if (!existsSync(freezerState)) ctx.skip(); // cgroup v2, or v1 without the freezer: no kill freezes
    for (let trial = 0; trial < 6; trial++) {
      const r = cli(home, ['run', WS, 'sh', '-c', "trap '' TERM; sleep 51.75"], env);
      expect(r.code, r.stderr + r.stdout).toBe(4);
      expect(readFileSync(freezerState, 'utf8').trim(), `after timeout ${trial + 1}`).toBe('THAWED');
    }
  });

  it('runs its next job when a dead killer left it frozen', { timeout: 30_000 }, (ctx) => {
    if (!existsSync(freezerState)) ctx.skip();
    writeFileSync(freezerState, 'FROZEN'); // as a killer SIGKILLed between its FROZEN and its THAWED leaves it
    const r = cli(home, ['run', WS, 'echo', 'ran-after-a-freeze'], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('ran-after-a-freeze');
    expect(readFileSync(freezerState, 'utf8').trim()).toBe('THAWED');
  });
});
