/**
 * The CLI shape of the batch verbs (#16): `headspace batch --strategy S
 * --spec FILE|-`, and `headspace batch status|wait|cancel GROUP` (each
 * sub-verb's `words`, as the events verbs).
 */
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import type { CliIo } from './io.js';
import type { CliAdapter } from './verb-adapters.js';

/** The spec's text: a file, or stdin for `-`. Read here, parsed and validated by the engine. */
function readSpec(raw: never, flag: string, io: CliIo): string {
  const given = String(raw);
  try {
    return given === '-' ? io.readStdin().toString('utf8') : readFileSync(resolve(io.cwd, given), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'not readable (permission denied)'
          : code === 'EISDIR'
            ? 'a directory, not a file'
            : 'unreadable';
    throw new EngineError('BAD_ARGUMENT', `${flag} ${given.slice(0, 80)}: ${why}`, {
      hint: 'give a YAML or JSON file listing jobs:, or - to read it from stdin',
    });
  }
}

const EXIT_CODES_LINE =
  "Exit codes: 0 the join succeeded; otherwise the batch's status decides — 6 a failed join (all's first failure was a failure, quorum out of reach, any_exhausted: no job of any succeeded), or the status of the job that decided (race's first, all's first failure, allSettled's first failure: 4 wall clock, 5 cancelled, 8 memory, 9 inconclusive, 7 the engine broke); 4 the batch's --timeout ran out; 5 cancelled (batch cancel, or Ctrl-C/SIGTERM: interrupted by a signal); 1 a bad spec, strategy or quorum, or an unknown workspace, and 3 a fork on a provider without snapshots, both before anything starts.";

export const BATCH_CLI_ADAPTERS: Readonly<Record<string, CliAdapter>> = {
  batch: {
    args: [],
    flags: {
      spec: {
        flags: '--spec <file>',
        description: 'the jobs: a YAML or JSON file (- reads stdin) with jobs: [{workspace|fork, command, name?}]',
        parse: readSpec,
      },
      jobs: null,
      timeoutSeconds: { flags: '--timeout <seconds>', description: 'the whole batch: past it, status timeout and the unfinished jobs cancelled' },
      cleanupTimeoutSeconds: {
        flags: '--cleanup-timeout <seconds>',
        description: 'how long stopping the losers may take before it is a cleanup error (default 10)',
      },
    },
    explain: `Runs the spec's jobs as one batch with a durable group id (bg-…) and joins them by --strategy: all (every job must succeed; the first failure decides and the rest are cancelled), allSettled (wait for every job; one failure makes the batch fail, never disguised), race (the first job to end decides, success or not), any (the first success; none: status any_exhausted), quorum --quorum K (K successes; failing once K is out of reach). The spec (YAML or JSON) lists jobs: each { workspace: ID, command: [ARGV…] or "WORDS" } or { fork: ID, command } to run in a fresh fork of ID (needs snapshots), with an optional name. When the batch settles, the forks that hold no answer are destroyed through destroy (the result says what was removed): a winner's fork is kept (seal it to propose its work), and so, when the batch did not succeed, is the fork of each job that failed by itself (its evidence); the forks of jobs the batch cancelled or never started, and in a successful batch every other fork, are destroyed, their output with them. --keep-forks keeps every fork. Everything is checked before anything starts (no jobs, a quorum missing or above the job count, an unknown workspace, a fork without snapshots). --concurrency N runs at most N jobs at once; a slot is held until its job has ENDED, not merely started; a workspace's own jobs-at-once budget still holds (a job whose workspace is busy, or whose fork: parent runs a job, waits queued, its line naming the busy job; a --concurrency above a workspace's budget is a warning). Each job is a detached run (explain run) so it outlives the caller. Winners are ordered by their recorded end time (ties by job id). Once the join decides, the losers are cancelled: queued jobs never start, running ones are stopped through stop (TERM, a 0.25 s grace, then a kill), bounded by --cleanup-timeout (default 10 s); the result reports how long until every loser was gone and names any cleanup error. The result lists each job's status in one line ([winner], or [deciding job] for one that decided without succeeding: race's first job, or the first failure of all or allSettled) and carries up to 5 jobs' output as evidence, a failed batch's failures first; the jobs left out are named, and each failed job has a logs next action (inspect JOB gives a winner's whole result). Under --json every finding is an object: the group's has group_id, each job's job_id, the cleanup's its counts. Without --detach the call blocks until the batch ends (Ctrl-C or SIGTERM cancels it, reported as interrupted by a signal); --detach returns the group id at once and a background process (headspace batch wait GROUP), recorded as the driver before the call returns, drives it. A batch whose driving process died is finished by the next batch wait (jobs already started are watched, never run again); batch status names it. ${EXIT_CODES_LINE}`,
  },
  'batch-status': {
    words: ['batch', 'status'],
    args: [['<group>', 'groupId']],
    explain: `Shows a batch: its strategy and bounds, each job's status in one line (winners marked), the cleanup report, and whether a live process drives it. Read-only: it never launches or cancels anything. Exit codes: those of the batch's status once it has finished (0 while it runs), 1 an unknown group id.`,
  },
  'batch-ls': {
    words: ['batch', 'ls'],
    args: [],
    flags: { limit: { flags: '--limit <n>', description: 'at most this many, the newest (default 100, at most 1000)' } },
    explain: `Lists the batches of this home, newest first, one line each: the group id, running or the status it finished with, the join (strategy, quorum), how many jobs, when it was created and finished, and its summary. Read-only and from the store alone: it drives, adopts and stops nothing (batch status GROUP shows one in full, and whether a live process drives it). --limit N shows the newest N (default 100); the result says how many were left out. Exit codes: 0 listed (none is no error), 1 a --limit outside 1 to 1000.`,
  },
  'batch-wait': {
    words: ['batch', 'wait'],
    args: [['<group>', 'groupId']],
    flags: { timeoutSeconds: { flags: '--timeout <seconds>', description: 'give up after this many seconds: exit 4, the batch runs on' } },
    explain: `Blocks until the batch has finished (the join decided and the losers are gone) and returns its result. When no live process drives the batch (its driver died, or the batch was started by a call that gave up), this call drives it: jobs already started are watched, never started again. --timeout S gives up after S seconds (status timeout, exit 4) and leaves the batch as it is; Ctrl-C ends the wait the same way (exit 5). ${EXIT_CODES_LINE}`,
  },
  'batch-cancel': {
    words: ['batch', 'cancel'],
    args: [['<group>', 'groupId']],
    explain: `Cancels a batch: its queued jobs never start, its running jobs are stopped (bounded by its cleanup timeout), and it ends with status cancelled (exit 5). A batch that had already finished is left as it is: its result, status and exit code are returned, saying this cancel changed nothing.`,
  },
};
