/**
 * The fake provider's run: records the job as running in the shared state
 * (so a stop from another process finds it), runs its `&&` sequence through
 * the interpreter, and always takes the job out again, reading its stop flag
 * before it goes.
 */
import type { Clock } from '../../core/clock.js';
import { EngineError } from '../../core/errors.js';
import type { LimitName } from '../../core/policy/policy.js';
import type { JobOutcome, RunRequest } from '../../core/provider.js';
import { currentOwner } from '../../core/store/owner.js';
import { splitSequence } from './fake-commands.js';
import { runFakeCommand, type FakeJobRun } from './fake-interpreter.js';
import { need, type FakeStore } from './fake-state.js';

export async function runFakeJob(store: FakeStore, clock: Clock, cannot: ReadonlySet<LimitName>, request: RunRequest): Promise<JobOutcome> {
  // The provider contract (#18): an allow-list job without the engine's egress path is refused, never run.
  if (request.policy.network === 'allowlist' && request.egress === undefined)
    throw new EngineError('POLICY_DENIED', "a network allow-list needs the engine's egress path, and this job was given none", {
      hint: 'this is a headspace bug: the run verb opens the egress session for every job of an allow-list workspace',
    });
  const job: FakeJobRun = {
    request,
    store,
    clock,
    cannot,
    shared: store.mutate((state) => {
      const ws = need(state, request.workspaceId);
      (ws.jobs ??= {})[request.jobId] = { owner: currentOwner(), stopRequested: false, heldBytes: 0 };
      return Object.keys(ws.jobs).length > 1;
    }),
    usage: { cpuSeconds: 0, maxMemoryBytes: 4 * 1024 * 1024, memoryScope: 'job', peakPids: 1 },
    oomKilled: false,
    signal: null,
    stopped: () => Boolean(store.load().workspaces[request.workspaceId]?.jobs?.[request.jobId]?.stopRequested),
  };
  const started = clock.now();
  let exitCode: number | null = 0;
  let wasStopped = false;
  try {
    for (const command of splitSequence(request.argv)) {
      exitCode = await runFakeCommand(job, command);
      if (exitCode !== 0 || request.signal.aborted || job.stopped()) break;
    }
  } finally {
    store.mutate((state) => {
      const ws = state.workspaces[request.workspaceId];
      const mine = ws?.jobs?.[request.jobId];
      if (ws?.jobs !== undefined && mine !== undefined) {
        if (Object.keys(ws.jobs).length > 1) job.shared = true;
        // Read before the entry goes: the stop flag is the job's own, and leaves with it.
        wasStopped = mine.stopRequested;
        delete ws.jobs[request.jobId];
      }
    });
  }
  if (job.shared) job.usage.memoryScope = 'workspace';
  let signal = job.signal;
  if (request.signal.aborted || wasStopped) {
    exitCode = null;
    signal = wasStopped && !request.signal.aborted ? 'SIGTERM' : 'SIGKILL';
  }
  return {
    exitCode,
    signal,
    oomKilled: job.oomKilled,
    stopped: wasStopped,
    aborted: request.signal.aborted,
    durationMs: clock.now() - started,
    usage: job.usage,
  };
}
