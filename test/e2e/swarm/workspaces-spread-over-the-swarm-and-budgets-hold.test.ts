/**
 * On the three-node test swarm (scripts/setup-swarm.sh), through the built
 * CLI: six workspaces land on at least two nodes (Swarm's placement, not
 * ours), a job runs in each, and the budgets hold there as on one machine —
 * memory (exit 8), wall clock (exit 4), stop from another process (exit 5) —
 * and an artifact exported from a worker's workspace has the digest it had.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { swarmReadiness } from '../../helpers/swarm-readiness.js';
import { NOT_DISPOSABLE } from '../../helpers/swarm-nodes.js';

const readiness = await swarmReadiness();
const { home, cleanup } = makeHome();
// The CLI helper clears the environment: the manager's address goes along explicitly.
const env: Record<string, string> = { HEADSPACE_PROVIDER: 'swarm', HEADSPACE_SWARM_HOST: readiness.host, HEADSPACE_SWARM_CONSTRAINTS: NOT_DISPOSABLE };
const ids = ['sp-1', 'sp-2', 'sp-3', 'sp-4', 'sp-5', 'sp-6'];
afterAll(async () => {
  // All at once: each destroy waits for its node to drop the task's container (#20: one after another took ~12 s).
  if (readiness.ready) await Promise.all(ids.map((id) => cliAsync(home, ['destroy', id, '--force'], env)));
  await cleanup();
});

describe.runIf(readiness.ready)(`workspaces on a three-node swarm${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  // Six services scheduled at once, then six jobs in turn: 12–20 s alone here, past 30 s on a loaded machine.
  // An 8 s wall clock: the later test's `sleep 30` must outlast it, and an `echo` here must not (at 3 s, one did at
  // load ~6 in CI: its exec on a remote node took that long to start and end).
  it('places six workspaces on at least two nodes and runs a job in each', { timeout: 90_000 }, async () => {
    const made = await Promise.all(
      ids.map((id) => cliAsync(home, ['create', '--workspace-id', id, '--memory-bytes', '67108864', '--wall-clock-seconds', '8'], env)),
    );
    for (const m of made) expect(m.code, m.stdout + m.stderr).toBe(0);
    for (const id of ids) {
      const run = cli(home, ['run', id, 'sh', '-c', 'echo ran-in-$0', id], env);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain(`ran-in-${id}`);
    }
    const manager = new Docker({ socketPath: readiness.host.slice('unix://'.length) });
    const nodes = new Set<string>();
    for (const task of (await manager.listTasks({ filters: { 'desired-state': ['running'] } })) as Array<{
      NodeID: string;
      Spec: { ContainerSpec: { Labels?: Record<string, string> } };
    }>) {
      if (ids.includes(task.Spec.ContainerSpec.Labels?.['dev.headspace.workspace'] ?? '')) nodes.add(task.NodeID);
    }
    expect(nodes.size).toBeGreaterThanOrEqual(2);
  });

  it('ends a job past its memory budget with exit 8 and one past its wall clock with exit 4', () => {
    const hog = cli(home, ['run', 'sp-1', 'sh', '-c', 'dd if=/dev/zero bs=1M count=256 | sort >/dev/null'], env);
    expect(hog.code, hog.stdout + hog.stderr).toBe(8);
    const slow = cli(home, ['run', 'sp-2', 'sleep', '30'], env);
    expect(slow.code, slow.stdout + slow.stderr).toBe(4);
  });

  it('cancels a running job from another process with exit 5', async () => {
    const running = cliAsync(home, ['run', 'sp-3', 'sleep', '60'], { ...env });
    await untilAJobRuns(home, 'sp-3', env);
    const stop = cli(home, ['stop', 'sp-3', '--apply'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    expect((await running).code).toBe(5);
  });

  it('exports an artifact with the digest it has in the workspace', () => {
    const made = cli(home, ['run', 'sp-4', 'sh', '-c', 'seq 1 5000 > result.txt'], env);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    expect(cli(home, ['declare', 'sp-4', 'result.txt=the numbers'], env).code).toBe(0);
    const expected = createHash('sha256')
      .update(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(''))
      .digest('hex');
    const to = join(home, 'result.txt');
    const exported = cli(home, ['export', 'sp-4', 'result.txt', '--to', to, '--expect-sha256', expected], env);
    expect(exported.code, exported.stdout + exported.stderr).toBe(0);
    expect(createHash('sha256').update(readFileSync(to)).digest('hex')).toBe(expected);
  });
});
