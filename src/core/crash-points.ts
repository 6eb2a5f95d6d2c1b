/**
 * TEST-ONLY crash injection. Inert unless `HEADSPACE_TEST_CRASH_AT` is set.
 *
 * The crash-injection suite (test/reliability/) kills the CLI with SIGKILL
 * at random delays; a delay rarely lands inside a few-millisecond window
 * such as "the intent is journalled but the provider was not called yet".
 * A named point makes that window certain: with
 * `HEADSPACE_TEST_CRASH_AT=export:before-publish` the process SIGKILLs
 * itself (no handler, no clean-up, exactly like `kill -9`) when the export
 * reaches that point. The value is a comma-separated list of `<op>:<stage>`
 * or bare `<stage>` (any op). Stages: `after-intent` (journalled, provider
 * not called), `after-provider-call` (provider returned, intent unsettled),
 * `before-publish` (export: the temporary file is complete, not renamed),
 * `mid-apply` (settle: the decision is journalled and part of the output's
 * changes have reached the parent);
 * a detached run's supervisor (op `supervise`) also has `before-launch` (the
 * job handed over, the provider not called) and `during-job` (the job's
 * first output arrived: the job is running under it);
 * the native provider's remove (op `remove`) has `in-reclaim`, which kills
 * not this process but the detached shell reclaiming the storage, once it
 * holds its lock (an interrupted reclaim for doctor to finish, #20).
 *
 * The variable is read once, at load; nothing else in headspace reads it.
 */
const armed = new Set(
  (process.env.HEADSPACE_TEST_CRASH_AT ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);

export type CrashStage = 'after-intent' | 'before-launch' | 'during-job' | 'after-provider-call' | 'before-publish' | 'mid-apply' | 'in-reclaim';

export function crashPoint(op: string, stage: CrashStage): void {
  if (crashArmed(op, stage)) process.kill(process.pid, 'SIGKILL');
}

/** Is this point armed? For a point another process reaches (a detached helper told to die there). */
export function crashArmed(op: string, stage: CrashStage): boolean {
  return armed.size > 0 && (armed.has(stage) || armed.has(`${op}:${stage}`));
}
