/**
 * A job's result package, built from its record: what a foreground run
 * returns, and what `wait` returns for a detached job once it has ended, so
 * the two cannot drift (#15 item 3). Everything comes from the store and the
 * provider, never from the process that ran the job: a detached job's
 * supervisor is gone by the time anyone reads it.
 */
import { statSync } from 'node:fs';
import type { EngineContext } from '../context.js';
import { jobOutputView } from '../output/job-evidence.js';
import type { Provider, ProviderCapabilities, WorkspaceDescriptor } from '../provider.js';
import { toEntry, unexportedAttention } from '../result/artifact-view.js';
import { buildResult } from '../result/build-result.js';
import { measuredLimitWarnings, provenanceFor, usageOfJob } from '../result/package-parts.js';
import { attentionItem, type AttentionItem, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { quotedName } from '../result/visible-text.js';
import { nextAction } from '../next-action.js';
import type { JobRecord, WorkspaceRecord } from '../store/sqlite-store.js';
import { provenanceInputs } from '../verbs/put.js';
import { commandLabel, jobFindings, jobSummary } from './job-words.js';
import { unproducedDeclarationWarnings } from '../verbs/run-paths.js';
import type { VerificationBlock } from '../verification/verification.js';
import { verificationAttention, verificationEvidence, verificationFinding, verificationRecord, verifiedSummary } from '../verification/verification-view.js';

export interface JobResultParts {
  verb: string;
  workspace: WorkspaceRecord;
  job: JobRecord;
  provider: Provider | null;
  /** Why the job could not run, in the provider's caller-facing words (infrastructure_failure). */
  failureMessage?: string | null;
  attention: AttentionItem[];
  /**
   * The verdict as the run that judged it holds it, with the deciding check's
   * output excerpt; without it (wait, inspect) the stored block is read, which
   * keeps each check's verdict and evidence digest but no output text.
   */
  verification?: VerificationBlock;
  /** Warnings of this call only (a supervision rule's caveat on what it can match, #16). */
  warnings?: string[];
  /** The job's log content as the run that wrote it holds it (execute-job.ts keptOutput); absent, the log is read. */
  keptOutput?: Buffer | null;
}

/** A running job as its log shows it now: its record counts bytes only when it ends (#12 item 16). */
export function withBytesSoFar(job: JobRecord, logPath: string): JobRecord {
  if (job.state !== 'running') return job;
  let size = 0;
  try {
    size = statSync(logPath).size;
  } catch {
    // No log yet: nothing printed so far.
  }
  return { ...job, outputBytes: size, storedBytes: size };
}

/** A result whose provider could not say what it enforces (an engine that did not answer) claims no limit either way. */
export const UNASKED_LIMITS_WARNING =
  'the provider did not answer what it enforces, so this result labels no limit enforced or measured (asked again once it answers, it says)';

/**
 * What a result asks the provider: what it enforces and its view of the workspace, each null when it could not
 * say. Asked at once: each is a question to an engine that may have stopped answering, bounded (a docker engine's:
 * 10 s), and asked in turn a quiet engine added both bounds (a run's result, inspect).
 */
export async function askProvider(
  provider: Provider | null | undefined,
  workspaceId: string,
): Promise<{ caps: ProviderCapabilities | null; view: WorkspaceDescriptor | null }> {
  if (!provider) return { caps: null, view: null };
  const [caps, view] = await Promise.all([provider.capabilities().catch(() => null), provider.inspect(workspaceId).catch(() => null)]);
  return { caps, view };
}

export async function jobResult(ctx: EngineContext, parts: JobResultParts): Promise<ResultPackage> {
  const { workspace: ws, provider } = parts;
  const store = ctx.store();
  const job = withBytesSoFar(parts.job, ctx.logPath(parts.job.id));
  const { caps, view } = await askProvider(provider, ws.id);
  // Every store read of the result in one read transaction: one snapshot, and one read lock instead of one per query (#20).
  const read = store.readConsistently(() => {
    const summary = provenanceFor(ctx, parts.verb, { workspace: ws, job, caps });
    const output = jobOutputView(ctx, job, undefined, parts.keptOutput ?? null);
    const artifacts = store.listArtifacts(ws.id);
    return {
      summary,
      output,
      // Verification (#16) comes from the store, as everything here: its verdict first, the deciding check's evidence first.
      stored: (store.verificationOf(job.id) as VerificationBlock | undefined) ?? null,
      receipt: store.receiptOf(job.id),
      // What the job's egress proxy allowed and denied (#18), as journalled with its terminal record.
      network: store.networkSummary(job.id),
      networkCut: store.jobNetworkCut(job.id),
      envNames: store.envNames(job.id),
      inputs: store.listInputs(ws.id, job.id),
      artifacts,
      unexported: unexportedAttention(store, ws.id, artifacts),
    };
  });
  const { summary, output, stored } = read;
  const verification = parts.verification && parts.verification.outcome !== 'none' ? parts.verification : stored;
  const verdict = verification === null ? null : verificationFinding(verification);
  const findings: KeyFinding[] = [...(verdict === null ? [] : [verdict]), ...output.findings, ...jobFindings(job, ws.policy.budget)];
  const checkEvidence = verification === null ? null : verificationEvidence(verification, job.id);
  if (checkEvidence) output.evidence.unshift(checkEvidence);
  if (verification !== null) summary.verification = verificationRecord(verification);
  if (read.receipt) summary.receipt_sha256 = read.receipt.sha256;
  if (read.network !== null) findings.push(read.network);
  if (read.envNames.length) findings.push(`environment given: ${read.envNames.join(', ')} (names only; values are never recorded)`);
  // Inputs are named once, in provenance (destination, size, digest): not again as findings.
  summary.inputs = provenanceInputs(read.inputs);
  const warnings = [...measuredLimitWarnings(summary.policy_summary), ...(parts.warnings ?? [])];
  // Nothing claimed either way is said to be unknown, not left to read as "nothing measured" (red team, session 18).
  if (provider && caps === null) warnings.push(UNASKED_LIMITS_WARNING);
  // A probe of the secret redactor is more than one denial among others: the job lost its network, and the workspace its secrets.
  if (read.networkCut)
    warnings.push(
      "the job's network was cut: a response ended with what may be a secret value's first bytes (a probe of the redactor); runs with secrets in this workspace and its forks are refused from now on",
    );
  const failure = parts.failureMessage ?? null;
  let unproduced: string[] = [];
  if (failure !== null) warnings.unshift(failure);
  else if (provider && job.state === 'finished') {
    const declared = read.artifacts.filter((a) => a.declaredByJob === job.id);
    const checked = await unproducedDeclarationWarnings(provider, ws.id, declared, job.cwd ?? '');
    warnings.push(...checked.warnings);
    unproduced = checked.missing;
  }
  // An artifact the job did not produce: withdrawing its declaration is the way on, not an export that would fail.
  const unexported = read.unexported.map((a) =>
    a.name !== undefined && unproduced.includes(a.name)
      ? attentionItem('unexported-artifact', `artifact ${quotedName(a.name)} is declared but was not produced; produce it, or withdraw the declaration`, {
          workspace_id: ws.id,
          name: a.name,
          action: nextAction('declare', { workspaceId: ws.id, name: a.name, remove: true }),
        })
      : a,
  );
  // A test run that ran no test reads as a pass (exit 0, "OK") and proves nothing: say so (a missing tests/__init__.py, a wrong -k).
  for (const f of output.findings) {
    if (typeof f !== 'string' && f.kind === 'test-summary' && f.failed === 0 && !f.passed && !f.errors) {
      warnings.push(
        `${String(f.tool)} ran no test: a run with no tests proves nothing; check that the tests are discovered (package __init__.py files, the path or pattern given)`,
      );
    }
    // A success whose output reports failed tests: the status is the command's exit code, and `… | tail` ends with tail's.
    const broken = typeof f !== 'string' && f.kind === 'test-summary' ? Number(f.failed ?? 0) + Number(f.errors ?? 0) : 0;
    if (broken > 0 && job.status === 'success')
      warnings.push(
        `exit 0, but ${String((f as { tool: unknown }).tool)}'s summary reports ${broken} failed or erroring test(s): success is the command's exit code, and a pipe (… | tail) ends with its last command's`,
      );
  }
  return buildResult({
    outcome_summary:
      (verification === null ? null : verifiedSummary(`job ${job.id} in ${job.workspaceId} ran ${commandLabel(job.argv)}`, verification)) ??
      jobSummary(job, failure),
    status: job.state === 'running' ? 'running' : (job.status ?? 'infrastructure_failure'),
    key_findings: findings,
    evidence: output.evidence,
    artifacts: read.artifacts.map(toEntry),
    warnings,
    resource_usage: usageOfJob(job, view?.storageBytes ?? null),
    provenance: summary,
    attention: [
      ...(verification === null
        ? []
        : verificationAttention(verification, {
            jobId: job.id,
            workspaceId: ws.id,
            wallClockSeconds: ws.policy.budget.wallClockSeconds,
            hasReceipt: read.receipt !== undefined && read.receipt !== null,
            // No output, or all of it in the excerpt: nothing more for a log read to show.
            outputShownWhole: !output.evidence.some((e) => e.label === 'captured output' && e.source === job.id && e.truncated),
          })),
      ...parts.attention.filter((a) => a.kind !== 'unexported-artifact'),
      ...unexported,
    ],
  });
}

/** The provider's failure as a finished job's record keeps it (execute-job.ts writes it in the note), for a reader other than the runner. */
export function recordedFailure(job: JobRecord): string | null {
  return job.status === 'infrastructure_failure' && job.note !== null ? job.note : null;
}
