/**
 * The fake provider's stop: marks the workspace's running jobs (or the one
 * named) as asked to stop, which is the fake's TERM, and waits the grace (and
 * a moment more) for them to notice and let go. A job whose process is gone
 * (kill -9) is dropped first: nothing of it runs any more.
 */
import type { StopOptions, StopReport } from '../../core/provider.js';
import { isOwnerAlive } from '../../core/store/owner.js';
import { need, type FakeStore } from './fake-state.js';

export async function stopFakeJobs(store: FakeStore, workspaceId: string, stopOptions: StopOptions): Promise<StopReport> {
  const targets = store.mutate((state) => {
    const jobs = (need(state, workspaceId).jobs ??= {});
    for (const [id, job] of Object.entries(jobs)) if (!isOwnerAlive(job.owner)) delete jobs[id];
    // One job when asked for one (the others run on), else every job of the workspace.
    const ids = Object.keys(jobs).filter((id) => stopOptions.jobId === undefined || id === stopOptions.jobId);
    for (const id of ids) jobs[id]!.stopRequested = true;
    return ids;
  });
  if (targets.length === 0) return { stopped: false, empty: true };
  const remaining = () => {
    const jobs = store.load().workspaces[workspaceId]?.jobs ?? {};
    return targets.some((id) => jobs[id] !== undefined);
  };
  const deadline = Date.now() + (stopOptions.graceMs ?? 5000) + 1000;
  while (Date.now() < deadline) {
    if (!remaining()) return { stopped: true, empty: true };
    await new Promise((r) => setTimeout(r, 20));
  }
  return { stopped: true, empty: !remaining() };
}
