/**
 * The one call run makes for verification (#16), after the job's process
 * has ended and before its terminal record is written: judges the checks
 * when the job succeeded by its own exit, marks them skipped otherwise.
 */
import type { EngineContext } from '../context.js';
import type { JobOutcome, Provider } from '../provider.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';
import { classifyOutcome, type AbortReason } from '../verbs/classify-outcome.js';
import { runChecks, skippedChecks } from './run-checks.js';
import { overallOutcome, type PlannedCheck, type VerificationBlock } from './verification.js';

export interface JudgeJobInput {
  provider: Provider;
  ws: WorkspaceRecord;
  jobId: string;
  cwd: string | undefined;
  env: Record<string, string>;
  outcome: JobOutcome | null;
  abortReason: AbortReason | null;
  checks: readonly PlannedCheck[];
  signal: AbortSignal | undefined;
  output: { totalBytes: number; storedBytes: number };
}

export async function judgeJob(ctx: EngineContext, input: JudgeJobInput): Promise<VerificationBlock> {
  if (input.checks.length === 0) return { outcome: 'none', checks: [] };
  const stopRequested = ctx.store().getJob(input.jobId)?.stopRequested ?? false;
  const own = input.outcome === null ? 'infrastructure_failure' : classifyOutcome(input.outcome, input.abortReason, stopRequested).status;
  const checks =
    own === 'success'
      ? await runChecks(
          {
            provider: input.provider,
            clock: ctx.clock,
            workspaceId: input.ws.id,
            jobId: input.jobId,
            policy: input.ws.policy,
            cwd: input.cwd,
            env: input.env,
            logPath: ctx.logPath(input.jobId),
            outputBytes: input.output.totalBytes,
            storedBytes: input.output.storedBytes,
            signal: input.signal,
          },
          input.checks,
        )
      : skippedChecks(input.checks, own);
  return { outcome: overallOutcome(checks), checks };
}
