/**
 * bwrap's outer process exits as soon as its namespace init reports the
 * command's status, leaving that init to be reaped by whoever adopts it.
 * The host's PID 1 reaped it late on these machines, and each zombie stayed
 * charged to the workspace's pids.max until then: after ~130 quick jobs
 * bwrap could not fork (EAGAIN) and jobs failed. The launcher now adopts and
 * reaps it (a child subreaper), so after any number of finished jobs the
 * workspace's pids count is only its live processes (an idle standby
 * launcher at most). Checked through the library, foreground and detached.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../src/api/index.js';
import { assertBuilt } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

/** The workspace's pids cgroup: pids.current, and the processes in it and its job slots. */
function pidsOf(workspaceId: string): { charged: number; live: number } | undefined {
  for (const base of ['/sys/fs/cgroup/pids/headspace', '/sys/fs/cgroup/headspace']) {
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    const name = names.find((n) => n.endsWith(`-${workspaceId}`));
    if (name === undefined) continue;
    const dir = join(base, name);
    const procs = (d: string) => readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).length;
    const slots = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name.startsWith('job-'));
    return { charged: Number(readFileSync(join(dir, 'pids.current'), 'utf8')), live: procs(dir) + slots.reduce((n, s) => n + procs(join(dir, s.name)), 0) };
  }
  return undefined;
}

const home = mkdtempSync(join(tmpdir(), 'hs-pids-charged-'));
const engine = createHeadspace({ home, defaultProvider: 'native' });
afterAll(() => {
  engine.close();
  rmSync(home, { recursive: true, force: true });
});

describe.runIf(readiness.ready)(`finished jobs on native (${readiness.reason || 'ready'})`, () => {
  it('leave nothing charged to the workspace pids budget but live processes', async () => {
    assertBuilt(); // the supervisor runs the built dist
    const ws = (await engine.create({ provider: 'native', budget: { concurrency: 2 } })).provenance.workspace_id!;
    for (let i = 0; i < 10; i++) expect((await engine.run({ workspaceId: ws, argv: ['true'] })).status).toBe('success');
    for (let i = 0; i < 5; i++) {
      const started = await engine.run({ workspaceId: ws, argv: ['true'], detach: true });
      expect((await engine.wait({ jobIds: started.provenance.job_id!, timeoutSeconds: 30 })).status).toBe('success');
    }
    const pids = pidsOf(ws);
    expect(pids, 'the workspace pids cgroup').toBeDefined();
    expect(pids!.charged).toBe(pids!.live);
    await engine.destroy({ workspaceId: ws, force: true });
  }, 120_000);
});
