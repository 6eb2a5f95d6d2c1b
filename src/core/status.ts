/**
 * The one vocabulary shared by result packages, errors and exit codes.
 *
 * Exit codes are additive only: a code, once published, is never renumbered
 * (scripts branch on them). 0–2 are the CLI's own outcomes, 3–9 mirror the
 * failure taxonomy one to one (9, inconclusive, was added for verification
 * contracts, #16).
 *
 * The lowest module in core: it imports nothing, so anything may use the
 * vocabulary (errors.ts builds on it; `exitCodeOf` lives there because it
 * refuses with an EngineError).
 */

/**
 * What a result package says happened. `running` is the one non-terminal
 * status: inspect of a job that has not finished reports it (the inspection
 * worked, so its code is 0); before, such a job read `success` (#12 item 22).
 */
export type ResultStatus =
  | 'running'
  | 'success'
  | 'failure'
  | 'timeout'
  | 'cancelled'
  | 'resource_exhausted'
  | 'policy_denied'
  | 'infrastructure_failure'
  /** The job ran, but a verification check could not reach a verdict (a verifier fault, #16): neither success nor failure. */
  | 'inconclusive'
  /** A batch with strategy any (#16) in which no job succeeded: a batch's status, never a job's. */
  | 'any_exhausted';

/** Why a verb ended the way it did; one category per exit code. */
export type Category =
  | 'success'
  | 'user_error'
  | 'environment_error'
  | 'policy_denied'
  | 'timeout'
  | 'cancelled'
  | 'computation_failed'
  | 'infrastructure_failure'
  | 'resource_exhausted'
  | 'inconclusive';

export const EXIT_CODES: Readonly<Record<Category, number>> = Object.freeze({
  success: 0,
  user_error: 1,
  environment_error: 2,
  policy_denied: 3,
  timeout: 4,
  cancelled: 5,
  computation_failed: 6,
  infrastructure_failure: 7,
  resource_exhausted: 8,
  // 9, added for #16: the next free code, after the seed's 0–8 (never renumbered).
  inconclusive: 9,
});

/** Each category in words; the README's exit-code table says the same, with examples (a new user found `explain` saying less). */
export const CATEGORY_MEANINGS: Readonly<Record<Category, string>> = Object.freeze({
  success: 'the verb completed',
  user_error:
    'bad flag, missing argument, unknown id or illegal move: fix the call; also a destroy (or a settle discard) refusing to throw away artifacts never exported or outputs not settled',
  environment_error:
    'a local set-up problem, a store written by a newer headspace, a port or server in the way, or the workspace is busy with another job; or a snapshot refusal: a consumed or invalid checkpoint, an output already settled, a moved parent or a conflict',
  policy_denied:
    'the declared policy could not be satisfied: refused before anything ran (e.g. no cgroup to back a budget, a provider without snapshots, a merge-gate denial)',
  timeout: "the wall-clock budget was hit, or a wait's or a batch's timeout ran out (the jobs run on)",
  cancelled:
    "the job was cancelled: by stop, or by its caller (an interrupt, a client's cancellation); the result says which. Also an interrupted watch or wait, and a cancelled batch",
  computation_failed:
    "the job ran and failed (non-zero exit, 126 not executable, 127 not found); or a batch's join failed (any_exhausted: no job succeeded; a quorum out of reach); or watch met a violation (not_running, progress_stale, budget_near, runtime_unhealthy)",
  infrastructure_failure: "the engine or the host broke (e.g. bubblewrap or user namespaces missing): not the command's fault",
  resource_exhausted: 'the kernel killed the job for exceeding its memory budget',
  inconclusive:
    "the job ran but its verification reached no verdict: a check's command was missing or not executable, or a check ran out of its time (a verifier fault, never the job's pass or fail)",
});

/**
 * The seed's shape for a client: each exit code, as a string key "0"…"9",
 * to what it means (`exit_codes["6"]` is the meaning of exit 6). The
 * name → code map stays EXIT_CODES.
 */
export function exitCodeMeanings(): Record<string, string> {
  return Object.fromEntries(CATEGORIES.map((c) => [String(EXIT_CODES[c]), CATEGORY_MEANINGS[c]]));
}

const STATUS_CATEGORY: Readonly<Record<ResultStatus, Category>> = Object.freeze({
  running: 'success',
  success: 'success',
  failure: 'computation_failed',
  timeout: 'timeout',
  cancelled: 'cancelled',
  resource_exhausted: 'resource_exhausted',
  policy_denied: 'policy_denied',
  infrastructure_failure: 'infrastructure_failure',
  inconclusive: 'inconclusive',
  // A failed join is a computation that failed (exit 6): no new code, the taxonomy's meaning holds.
  any_exhausted: 'computation_failed',
});

export function categoryOfStatus(status: ResultStatus): Category {
  return STATUS_CATEGORY[status];
}

export const RESULT_STATUSES: readonly ResultStatus[] = Object.keys(STATUS_CATEGORY) as ResultStatus[];
export const CATEGORIES: readonly Category[] = Object.keys(EXIT_CODES) as Category[];
