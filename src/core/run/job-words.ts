/**
 * A job's words in a result package: its one-line summary, its command as a
 * summary names it, its findings (exit, output, budgets hit). Shared by every
 * verb that reports a job (run, inspect, wait), so a job reads the same
 * whichever verb shows it.
 */
import { formatBytes } from '../policy/effective-policy.js';
import { shellJoin } from '../result/markdown-sections.js';
import type { JobRecord } from '../store/sqlite-store.js';

/** The command as a summary names it: whole when it is short, else its first word and an ellipsis. */
/** Commands up to this many characters are named whole in a summary (and then not repeated in provenance). */
const COMMAND_IN_SUMMARY = 60;

export function commandLabel(argv: string[]): string {
  const whole = shellJoin(argv);
  if (whole.length <= COMMAND_IN_SUMMARY && !/[\r\n]/.test(whole)) return whole;
  const first = argv[0] ?? '';
  const shown = first.length > 40 ? `${first.slice(0, 40)}…` : first;
  return argv.length > 1 ? `${shown} …` : shown;
}

/** `failure`: why the job could not run, in the provider's caller-facing words (infrastructure_failure). */
export function jobSummary(job: JobRecord, failure: string | null = null): string {
  const what = `job ${job.id} in ${job.workspaceId} ran ${commandLabel(job.argv)}`;
  switch (job.status) {
    case 'success':
      return `${what}: success`;
    case 'failure':
      if (job.exitCode === 0) return `${what} and exited 0, but failed its verification`;
      if (job.exitCode === 127) return `${what}, but the command was not found (exit 127)`;
      if (job.exitCode === 126) return `${what}, but the command is not executable (exit 126)`;
      return job.exitCode === null ? `${what} and was killed by ${job.signal ?? 'a signal'}` : `${what} and failed with exit status ${job.exitCode}`;
    case 'timeout':
      return `${what} and hit its wall-clock budget`;
    case 'cancelled':
      return job.cancelledBy === null ? `${what} and was cancelled` : `${what} and was cancelled by ${job.cancelledBy}`;
    case 'resource_exhausted':
      return `${what} and was killed by the kernel for exceeding its memory budget`;
    case 'infrastructure_failure':
      // Not "could not run": a job the engine died under ran for a while (a new user read that of a 13.8 s job); the
      // failure's own words say which it was.
      return `job ${job.id} in workspace ${job.workspaceId} ended without a result: the engine failed${failure ? ` (${failure})` : ''}`;
    case 'inconclusive':
      return `${what} and exited 0, but its verification reached no verdict (inconclusive)`;
    case 'policy_denied':
      return `job ${job.id} was refused by policy`;
    case 'any_exhausted': // a batch's status, never a job's
    case 'running':
    case null:
      return `job ${job.id} is still running in workspace ${job.workspaceId}`;
  }
}

export function jobFindings(job: JobRecord, budget: { outputBytes: number; wallClockSeconds: number; memoryBytes: number }): string[] {
  const exit = `exit ${job.exitCode === null ? '(none)' : job.exitCode}${job.signal ? ` (signal ${job.signal})` : ''}`;
  const output =
    job.outputBytes === 0 ? 'no output' : `output ${job.outputBytes} bytes${job.storedBytes < job.outputBytes ? ` (${job.storedBytes} kept)` : ''}`;
  const findings = [`${exit}, ${output}`];
  if (job.limitHit === 'wall_clock') findings.push(`wall-clock budget of ${budget.wallClockSeconds} s was hit; the job's processes were killed`);
  if (job.limitHit === 'memory') findings.push(`memory budget of ${formatBytes(budget.memoryBytes)} was exceeded; the kernel's OOM killer ended the job`);
  // Derived from the counts, not limitHit: a job can be truncated and also time out.
  if (job.outputBytes > job.storedBytes) {
    findings.push(
      `output budget of ${formatBytes(budget.outputBytes)} was reached: ${job.outputBytes} bytes printed, ${job.storedBytes} kept (truncated: its first bytes and, past a marked gap, its last lines); the job ran on to its own end`,
    );
  }
  return findings;
}
