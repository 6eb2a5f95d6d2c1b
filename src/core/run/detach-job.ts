/**
 * `run --detach` (#15 item 1), the caller's half: after every check a
 * foreground run makes (and the inputs copied in), start the job's
 * supervisor, record the job with the supervisor as its owner, hand it the
 * job over a pipe and return at once with status `running`.
 *
 * The order is what makes it safe to kill the caller at any point:
 *  - the supervisor is spawned first and waits on its stdin, so the job is
 *    recorded with the process that will own it (pid and start time), never
 *    with the caller, which may be gone a moment later;
 *  - the record (job, env names, declarations, run intent) is committed
 *    before the handover, so the job is durable before anything launches;
 *  - the job's env VALUES go only down the pipe, then the pipe is closed:
 *    never the store, argv, the supervisor's environment or a file;
 *  - a caller killed between the record and the handover leaves the
 *    supervisor an incomplete handover: it records the job as
 *    infrastructure_failure (nothing ran) and exits. A caller killed before
 *    the record leaves a supervisor with no job: it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem, type ResultPackage } from '../result/result-package.js';
import { processStartTime, type Owner } from '../store/owner.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';
import type { Declaration } from '../verbs/declare.js';
import { recordJob } from './record-job.js';
import { jobResult } from './job-result.js';
import { encodeHandover } from './handover.js';
import type { PlannedCheck } from '../verification/verification.js';

/** The supervisor's entry point: a bin file, as only a bin may exit (it lives beside bin/headspace). */
const SUPERVISOR_BIN = fileURLToPath(new URL('../../../bin/headspace-supervisor', import.meta.url));

/**
 * What the supervisor's environment keeps of the caller's: where things are
 * (PATH, HOME, the temporary directory, the Docker host) and headspace's own
 * settings. Everything else is left out, so a value the caller holds for a
 * job's --env NAME reaches the supervisor only down the pipe.
 */
const KEPT_ENV = /^(PATH|HOME|LANG|LC_[A-Z]+|TMPDIR|TZ|DOCKER_HOST|HEADSPACE_[A-Z0-9_]+)$/;

export function refuseUndetachable(ctx: EngineContext, provider: string): void {
  if (ctx.detachable?.(provider) === true) return;
  throw new EngineError('BAD_ARGUMENT', `a detached run needs a registered provider; '${provider}' was given to this engine by its caller`, {
    hint: 'its supervisor is another process and rebuilds the provider from the state directory: run it in the foreground, or use a registered provider (native, docker, fake)',
  });
}

export interface DetachedRun {
  workspace: WorkspaceRecord;
  jobId: string;
  argv: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  declarations: Declaration[];
  /** The run's verification contract (#16), run by the supervisor after the job. */
  checks: PlannedCheck[];
  attention: AttentionItem[];
}

export async function runDetached(ctx: EngineContext, run: DetachedRun): Promise<ResultPackage> {
  const { workspace: ws, jobId } = run;
  const store = ctx.store();
  const child = await startSupervisor(ctx.home, jobId);
  const owner: Owner = { pid: child.pid!, started: processStartTime(child.pid!) };
  let intentId: number;
  try {
    // One commit, as a foreground run's, with the supervisor as the job's owner.
    intentId = recordJob(ctx, { workspace: ws, jobId, argv: run.argv, cwd: run.cwd, env: run.env, declarations: run.declarations, owner });
  } catch (error) {
    // Nothing was recorded: an empty handover tells the supervisor there is no job, and it exits.
    await closeHandover(child, '');
    throw error;
  }
  ctx.events.emit({ type: 'job.started', workspaceId: ws.id, jobId });
  crashPoint('run', 'after-intent');
  await closeHandover(child, encodeHandover({ jobId, intentId, env: run.env, checks: run.checks }));

  const job = store.getJob(jobId)!;
  const about = { workspace_id: ws.id, job_id: jobId };
  return jobResult(ctx, {
    verb: 'run',
    workspace: ws,
    job,
    provider: await ctx.provider(ws.provider),
    attention: [
      attentionItem('next-step', `job ${jobId} runs detached (supervisor pid ${owner.pid}); its result, once it ends`, {
        ...about,
        action: nextAction('wait', { jobIds: jobId }),
      }),
      attentionItem('next-step', 'its output so far', { ...about, action: nextAction('logs', { jobId, tail: 20 }) }),
      attentionItem('next-step', 'to end it', { ...about, action: nextAction('stop', { workspaceId: ws.id, jobId, apply: true }) }),
      ...run.attention,
    ],
  });
}

/** Spawns the supervisor in a session of its own, its stdout and stderr not the caller's, waiting on its stdin. */
function startSupervisor(home: string, jobId: string): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { HEADSPACE_HOME: home };
  for (const [name, value] of Object.entries(process.env)) if (KEPT_ENV.test(name) && name !== 'HEADSPACE_HOME') env[name] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SUPERVISOR_BIN, jobId], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env });
    child.once('spawn', () => resolve(child));
    child.once('error', (cause) =>
      reject(
        new EngineError('INTERNAL', `the supervisor of a detached run could not be started: ${cause.message}`, {
          hint: 'run it in the foreground (without detach), and ask doctor',
          action: nextAction('doctor'),
          cause,
        }),
      ),
    );
  });
}

/** Writes the handover (or nothing), closes the pipe once it is flushed, and lets the supervisor go: the caller may exit at once. */
function closeHandover(child: ChildProcess, text: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const stdin = child.stdin!;
    // A supervisor that died already (EPIPE) reads as an orphaned job to the next reconcile: the caller's answer stands.
    stdin.once('error', () => resolve());
    stdin.end(text, () => resolve());
  }).then(() => {
    child.removeAllListeners('error');
    child.on('error', () => {});
    child.unref();
  });
}
