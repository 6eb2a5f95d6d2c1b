import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { normalizeWorkspacePath } from '../paths.js';
import { reconcileStore } from '../reconcile.js';
import type { ResultPackage } from '../result/result-package.js';
import { crashPoint } from '../crash-points.js';
import { currentOwner } from '../store/owner.js';
import { requireLiveWorkspace, requireUnexpired } from './workspace-guards.js';
import { copyIn, leftOutGitAttention } from '../files/copy-in.js';
import { checkDeclaration, type Declaration } from './declare.js';
import { recordJob } from '../run/record-job.js';
import { checkWorkingDirectory } from './run-paths.js';
import { executeJob } from '../run/execute-job.js';
import { jobResult } from '../run/job-result.js';
import { refuseUndetachable, runDetached } from '../run/detach-job.js';
import { planChecks, type VerificationRequest } from '../verification/verification.js';
import { checkRulesBeforeJob } from '../rules/supervise.js';
import { TEST_RESOLVER_ENV } from '../network/egress-resolver.js';
import { planSecrets, type SecretInput } from '../network/egress-secrets.js';
import { refuseSecretsAfterAProbe } from '../network/secrets-after-a-probe.js';

/** A run's verification contract (#16) is part of its input: verify, expectFiles, expectOutput. */
export interface RunInput extends VerificationRequest {
  workspaceId: string;
  argv: string[];
  jobId?: string;
  /** The job's environment: names are recorded, values never. */
  env?: Record<string, string>;
  /**
   * Secrets at egress (#18 item 3): the job's environment gets NAME=hs-secret-NAME-<random>, and the
   * workspace's egress proxy puts the value in its place only in requests to `host`, over TLS. Names are
   * recorded (with the env names), values never. Needs a network allow-list that covers `host`.
   */
  secrets?: SecretInput[];
  cwd?: string;
  /** Aborting it cancels the job (e.g. the CLI's SIGINT). */
  signal?: AbortSignal;
  /** Who aborting `signal` stands for, e.g. 'the MCP client': recorded as the job's cancelled_by and named in its summary; default 'the caller'. */
  canceller?: string;
  /** Host files or directories copied in before the job starts (never overwriting). */
  inputs?: Array<{ destination: string; hostPath: string }>;
  /** Leave nested `.git` entries out of the inputs (set by the MCP face: an agent's copy; files/host-source.ts). */
  withoutGitMetadata?: boolean;
  /** Artifacts the job will produce; only declared artifacts can be exported. */
  declares?: Declaration[];
  /**
   * Return at once with status `running`: the home's shared supervisor, a process that outlives
   * the caller runs the job and writes its terminal record (#15); `wait`,
   * `logs` and `stop` take it from there. The caller's `signal` no longer
   * reaches the job once this returns.
   */
  detach?: boolean;
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
  if (input.detach !== undefined && typeof input.detach !== 'boolean')
    throw new EngineError('BAD_ARGUMENT', `${inputRef('detach')} takes true or false`, {
      hint: `${inputRef('detach')} returns at once and leaves the job to a supervisor`,
      inputsOf: 'run',
    });
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
  const checks = planChecks(input);
  const cwd = input.cwd === undefined ? undefined : normalizeWorkspacePath(input.cwd, { allowRoot: true });
  const store = ctx.store();
  // Refused before anything is copied in: a second run with the same id would have copied its inputs under the first job's name.
  // Every check's read, and reconcile's, in one read transaction: one snapshot and one read lock instead of four (#20).
  // The refusals still come in their order below (id, workspace, secrets, rules, busy).
  const { ws, rules, busy, attention } = store.readConsistently(() => {
    if (store.getJob(jobId)) throw new EngineError('BAD_ID', `job id ${jobId} is already used`, { hint: 'omit the job id to get a fresh one' });
    const live = requireUnexpired(ctx, requireLiveWorkspace(ctx, input.workspaceId));
    // The busy refusal is built here, in the snapshot that found the workspace full: built after it, the job
    // it names may have ended meanwhile, and the refusal named none ("a job is running", CI on a25c201).
    const busy = store.isFull(live) ? store.busyError(live.id) : null;
    return { ws: live, rules: store.listRules(live.id), busy, attention: reconcileStore(ctx, live.id, { ws: live }) };
  });
  // Secrets (#18 item 3): refused before anything is recorded or runs when the workspace's egress cannot keep them.
  const secrets = planSecrets(input.secrets, ws.policy, env);
  if (secrets.length > 0) refuseSecretsAfterAProbe(ctx, ws.id);
  const jobEnv = secrets.length === 0 ? env : { ...env, ...Object.fromEntries(secrets.map((s) => [s.name, s.placeholder])) };
  // Supervision rules (#16): a refusal here comes before anything is recorded or started (no job, no process, no cgroup).
  const ruleWarnings = checkRulesBeforeJob(
    ctx,
    ws,
    input.argv,
    checks.flatMap((c) => (c.kind === 'verify' ? [c.argv] : [])),
    rules,
  );
  // Refused at once when the policy's jobs at once are taken; beginJob checks again atomically.
  if (busy !== null) throw busy;
  const provider = await ctx.provider(ws.provider);
  // A detached job is run by another process, which can rebuild only the registered providers from the home.
  if (input.detach === true) refuseUndetachable(ctx, ws.provider);

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
  // They are recorded with the job's id, and its result names them from the store.
  for (const item of input.inputs ?? []) {
    await copyIn(ctx, ws, provider, {
      hostPath: item.hostPath,
      destination: item.destination,
      overwrite: false,
      jobId,
      withoutGitMetadata: input.withoutGitMetadata === true,
      onLeftOut: (paths) => attention.push(leftOutGitAttention(item.destination, paths)),
    });
  }

  if (input.detach === true) return runDetached(ctx, { workspace: ws, jobId, argv: input.argv, env: jobEnv, cwd, declarations, checks, secrets, attention });

  // One commit: the workspace is taken and the intent is journalled together, this process the job's owner.
  const intentId = recordJob(ctx, { workspace: ws, jobId, argv: input.argv, cwd, env: jobEnv, declarations, owner: currentOwner() });
  ctx.events.emit({ type: 'job.started', workspaceId: ws.id, jobId });
  crashPoint('run', 'after-intent');

  const { job, failure, ruleAttention, verification, egressTestMode, keptOutput } = await executeJob(ctx, {
    workspace: ws,
    provider,
    jobId,
    argv: input.argv,
    env: jobEnv,
    secrets,
    ...(ctx.egressTestEnv === undefined ? {} : { resolverEnv: ctx.egressTestEnv }),
    ...(cwd === undefined ? {} : { cwd }),
    intentId,
    checks,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.canceller === undefined ? {} : { canceller: input.canceller }),
    op: 'run',
  });
  return jobResult(ctx, {
    verb: 'run',
    workspace: ws,
    job,
    provider,
    failureMessage: failure ? `the ${ws.provider} provider failed: ${failure.message}` : null,
    attention: [...ruleAttention, ...attention],
    // Test mode must never pass unnoticed: the proxy then answers some names itself (core/network/egress-resolver.ts).
    warnings: egressTestMode
      ? [...ruleWarnings, `${TEST_RESOLVER_ENV} is set: the egress proxy answered its names itself (a test mode, never for real use)`]
      : ruleWarnings,
    verification,
    keptOutput,
  });
}

export { commandLabel, jobFindings, jobSummary } from '../run/job-words.js';
