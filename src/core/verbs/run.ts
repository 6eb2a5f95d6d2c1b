import type { EngineContext } from '../context.js';
import { EngineError, toEngineError } from '../errors.js';
import { callerFacing } from '../infrastructure-errors.js';
import { validateId } from '../ids.js';
import { normalizeWorkspacePath } from '../paths.js';
import type { JobOutcome } from '../provider.js';
import { reconcile } from '../reconcile.js';
import type { KeyFinding, ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor, usageOfJob, measuredLimitWarnings } from '../result/package-parts.js';
import { crashPoint } from '../crash-points.js';
import { currentOwner } from '../store/owner.js';
import type { JobRecord } from '../store/sqlite-store.js';
import { CANCELLED_BY_STOP } from '../store/records.js';
import { formatBytes } from '../policy/effective-policy.js';
import { shellJoin } from '../result/markdown-sections.js';
import { classifyOutcome, type AbortReason } from './classify-outcome.js';
import { jobOutputView } from '../output/job-evidence.js';
import { openOutputSink } from '../output/output-sink.js';
import { requireLiveWorkspace, requireUnexpired } from './workspace-guards.js';
import { copyIn } from '../files/copy-in.js';
import type { InputRecord } from '../store/sqlite-store.js';
import { artifactEntries, unexportedAttention } from '../result/artifact-view.js';
import { checkDeclaration, recordDeclarations, type Declaration } from './declare.js';
import { provenanceInputs } from './put.js';
import { checkWorkingDirectory, unproducedDeclarationWarnings } from './run-paths.js';
import { openEgressSession, type EgressSession } from '../network/egress-session.js';
import { summariseEgress, type EgressLedger } from '../network/egress-ledger.js';
import { TEST_RESOLVER_ENV } from '../network/egress-resolver.js';
import type { SqliteStore } from '../store/sqlite-store.js';

export interface RunInput {
  workspaceId: string;
  argv: string[];
  jobId?: string;
  /** The job's environment: names are recorded, values never. */
  env?: Record<string, string>;
  cwd?: string;
  /** Aborting it cancels the job (e.g. the CLI's SIGINT). */
  signal?: AbortSignal;
  /** Who aborting `signal` stands for, e.g. 'the MCP client': recorded as the job's cancelled_by and named in its summary; default 'the caller'. */
  canceller?: string;
  /** Host files or directories copied in before the job starts (never overwriting). */
  inputs?: Array<{ destination: string; hostPath: string }>;
  /** Artifacts the job will produce; only declared artifacts can be exported. */
  declares?: Declaration[];
}

/**
 * Runs one command in a workspace. Journal, then engine, then state: the
 * intent row exists before the provider is called, so a crash mid-job is
 * visible to the next verb's reconciliation.
 */
export async function runJob(ctx: EngineContext, input: RunInput): Promise<ResultPackage> {
  validateId('workspace', input.workspaceId);
  if (!Array.isArray(input.argv) || input.argv.length === 0 || input.argv[0] === '') {
    throw new EngineError('BAD_ARGUMENT', 'run needs a command after the workspace id', { hint: 'give the command as its argv, e.g. python3 -c "print(1)"' });
  }
  if (input.argv.some((a) => typeof a !== 'string' || a.includes('\0'))) {
    throw new EngineError('BAD_ARGUMENT', 'command arguments must be text without NUL bytes', {
      hint: "pass binary data through a file (put, or a run's inputs), not through argv",
    });
  }
  const jobId = input.jobId === undefined ? ctx.ids('job') : validateId('job', input.jobId);
  const env = input.env ?? {};
  for (const name of Object.keys(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new EngineError('BAD_ARGUMENT', `'${name.slice(0, 40)}' is not a valid environment variable name`, {
        hint: 'a name is letters, digits and _, not starting with a digit, e.g. API_TOKEN',
      });
    // Refused before any record (a NUL reached the provider and read as an engine failure, exit 7); the value is never echoed.
    if (typeof env[name] !== 'string' || env[name].includes('\0'))
      throw new EngineError('BAD_ARGUMENT', `environment variable ${name} must be text without NUL bytes`, {
        hint: "pass binary data through a file (put, or a run's inputs), not through the environment",
      });
  }
  const declarations = (input.declares ?? []).map(checkDeclaration);
  const cwd = input.cwd === undefined ? undefined : normalizeWorkspacePath(input.cwd, { allowRoot: true });
  const store = ctx.store();
  const ws = requireUnexpired(ctx, requireLiveWorkspace(ctx, input.workspaceId));
  // Refused at once when the policy's jobs at once are taken; beginJob checks again atomically.
  store.refuseIfFull(ws.id);
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  const provider = await ctx.provider(ws.provider);
  const caps = await provider.capabilities();

  // Refused before anything is copied or recorded; inputs and declarations stay workspace-root relative (run-paths.ts).
  if (cwd !== undefined)
    await checkWorkingDirectory(
      provider,
      ws.id,
      cwd,
      (input.inputs ?? []).map((i) => normalizeWorkspacePath(i.destination)),
    );

  // Inputs enter through the same code as `put`, before the job starts, and
  // never overwrite: replacing a file is a deliberate act that belongs to put.
  const inputs: InputRecord[] = [];
  for (const item of input.inputs ?? []) {
    inputs.push(await copyIn(ctx, ws, provider, { hostPath: item.hostPath, destination: item.destination, overwrite: false, jobId }));
  }

  const startedAt = ctx.clock.now();
  // One commit: the workspace is taken and the intent is journalled together.
  const intent = store.atomically(() => {
    store.beginJob({ id: jobId, workspaceId: ws.id, argv: input.argv, ...(cwd === undefined ? {} : { cwd }), startedAt, owner: currentOwner() });
    if (Object.keys(env).length) store.recordEnvNames(jobId, Object.keys(env).sort());
    recordDeclarations(ctx, store, ws.id, declarations, jobId);
    return store.openIntent({ workspaceId: ws.id, jobId, op: 'run', provider: ws.provider, owner: currentOwner(), createdAt: startedAt, traceId: ctx.traceId });
  });
  ctx.events.emit({ type: 'job.started', workspaceId: ws.id, jobId });
  crashPoint('run', 'after-intent');

  const controller = new AbortController();
  let abortReason: AbortReason | null = null;
  const abort = (reason: AbortReason) => {
    if (abortReason !== null) return;
    abortReason = reason;
    controller.abort();
  };
  const budget = ws.policy.budget;
  // The output budget caps what is kept, never the job: past it the sink only counts (#12 item 2).
  const sink = openOutputSink(ctx.logPath(jobId), budget.outputBytes);
  const cancelTimer = ctx.clock.setTimer(budget.wallClockSeconds * 1000, () => abort('timeout'));
  const onCallerAbort = () => abort('cancelled');
  if (input.signal?.aborted) onCallerAbort();
  input.signal?.addEventListener('abort', onCallerAbort, { once: true });

  let outcome: JobOutcome | null = null;
  let failure: EngineError | null = null;
  let egress: EgressSession | null = null;
  try {
    // The egress proxy lives exactly as long as this job's run (#18).
    if (ws.policy.network === 'allowlist')
      egress = await openEgressSession(ws.policy.networkAllow ?? [], { simulated: caps.simulated === true, now: () => ctx.clock.now() });
    outcome = await provider.run({
      workspaceId: ws.id,
      jobId,
      argv: input.argv,
      env,
      ...(cwd === undefined ? {} : { cwd }),
      policy: ws.policy,
      onOutput: (stream, chunk) => {
        sink.write(stream, chunk);
        ctx.events.emit({ type: 'job.output', jobId, bytes: chunk.length });
      },
      signal: controller.signal,
      ...(egress === null ? {} : { egress: egress.channel }),
    });
  } catch (error) {
    failure = callerFacing(toEngineError(error), ws.provider);
  } finally {
    await egress?.close();
    cancelTimer();
    input.signal?.removeEventListener('abort', onCallerAbort);
    sink.close();
  }
  crashPoint('run', 'after-provider-call');
  const finishedAt = ctx.clock.now();
  // One commit: the intent settles with the job's single terminal record.
  const job: JobRecord = store.atomically(() => {
    store.settleIntent(intent, failure ? `failed: ${failure.code}` : 'ran', finishedAt);
    const stopRequested = store.getJob(jobId)?.stopRequested ?? false;
    if (!outcome) {
      return store.finishJob(jobId, {
        status: 'infrastructure_failure',
        exitCode: null,
        signal: null,
        limitHit: null,
        finishedAt,
        outputBytes: sink.totalBytes,
        storedBytes: sink.storedBytes,
        usage: {},
      });
    }
    const { status, limitHit } = classifyOutcome(outcome, abortReason, stopRequested);
    const exited = status === 'cancelled' || status === 'timeout' ? null : outcome.exitCode;
    // A stop outranks the caller's abort, as in classifyOutcome; the record says which it was (#12 item 22).
    const cancelledBy = outcome.stopped || stopRequested ? CANCELLED_BY_STOP : (input.canceller ?? 'the caller');
    return store.finishJob(jobId, {
      status,
      exitCode: exited,
      signal: outcome.signal,
      limitHit,
      finishedAt,
      outputBytes: sink.totalBytes,
      storedBytes: sink.storedBytes,
      usage: outcome.usage,
      cancelledBy,
    });
  });
  ctx.events.emit({ type: 'job.finished', workspaceId: ws.id, jobId, status: job.status ?? 'unknown' });
  const network = egress === null ? null : journalEgress(store, ws.id, jobId, egress.ledger);

  const view = await provider.inspect(ws.id).catch(() => null);
  const summary = provenanceFor(ctx, 'run', { workspace: ws, job, caps });
  const output = jobOutputView(ctx, job);
  const findings: KeyFinding[] = [...output.findings, ...jobFindings(job, ws.policy.budget)];
  if (network !== null) findings.push(network);
  if (Object.keys(env).length) findings.push(`environment given: ${Object.keys(env).sort().join(', ')} (names only; values are never recorded)`);
  // Inputs are named once, in provenance (destination, size, digest): not again as findings.
  summary.inputs = provenanceInputs(inputs);
  const warnings = measuredLimitWarnings(summary.policy_summary);
  // Test mode must never pass unnoticed: the proxy then answers some names itself (core/network/egress-resolver.ts).
  if (egress?.resolver.testMode === true)
    warnings.push(`${TEST_RESOLVER_ENV} is set: the egress proxy answered its names itself (a test mode, never for real use)`);
  if (failure) warnings.unshift(`the ${ws.provider} provider failed: ${failure.message}`);
  else warnings.push(...(await unproducedDeclarationWarnings(provider, ws.id, declarations, cwd ?? '')));
  // A test run that ran no test reads as a pass (exit 0, "OK") and proves nothing: say so (a missing tests/__init__.py, a wrong -k).
  for (const f of output.findings) {
    if (typeof f !== 'string' && f.kind === 'test-summary' && f.failed === 0 && !f.passed && !f.errors) {
      warnings.push(
        `${String(f.tool)} ran no test: a run with no tests proves nothing; check that the tests are discovered (package __init__.py files, the path or pattern given)`,
      );
    }
  }
  return buildResult({
    outcome_summary: jobSummary(job, failure),
    status: job.status ?? 'infrastructure_failure',
    key_findings: findings,
    evidence: output.evidence,
    artifacts: artifactEntries(store, ws.id),
    warnings,
    resource_usage: usageOfJob(job, view?.storageBytes ?? null),
    provenance: summary,
    attention: [...attention.filter((a) => a.kind !== 'unexported-artifact'), ...unexportedAttention(store, ws.id)],
  });
}

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

export function jobSummary(job: JobRecord, failure: EngineError | null = null): string {
  const what = `job ${job.id} in ${job.workspaceId} ran ${commandLabel(job.argv)}`;
  switch (job.status) {
    case 'success':
      return `${what}: success`;
    case 'failure':
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
      return `job ${job.id} in workspace ${job.workspaceId} could not run: the engine failed${failure ? ` (${failure.message})` : ''}`;
    case 'policy_denied':
      return `job ${job.id} was refused by policy`;
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
      `output budget of ${formatBytes(budget.outputBytes)} was reached: ${job.outputBytes} bytes printed, the first ${job.storedBytes} kept (truncated); the job ran on to its own end`,
    );
  }
  return findings;
}

/** Journals a job's egress decisions and returns its one-line summary (#18 item 2). */
function journalEgress(store: SqliteStore, workspaceId: string, jobId: string, ledger: EgressLedger): string {
  const summary = summariseEgress(ledger.decisions, ledger);
  store.atomically(() => store.recordNetworkDecisions(jobId, workspaceId, ledger.decisions, summary));
  return summary;
}
