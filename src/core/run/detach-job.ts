/**
 * `run --detach` (#15 item 1), the caller's half: after every check a
 * foreground run makes (and the inputs copied in), reach the home's shared
 * supervisor (shared-supervisor.ts; started if none answers), record the job
 * with the supervisor as its owner, hand it the job over its socket and
 * return at once with status `running`.
 *
 * The order is what makes it safe to kill the caller at any point:
 *  - the supervisor answers first with its pid and start time, so the job is
 *    recorded with the process that will own it, never with the caller,
 *    which may be gone a moment later;
 *  - the record (job, env names, declarations, run intent) is committed
 *    before the handover, so the job is durable before anything launches;
 *  - the job's env VALUES go only over the socket (or the fallback's pipe):
 *    never the store, argv, the supervisor's environment or a file;
 *  - a caller killed between the record and the handover leaves the
 *    supervisor a connection that ended without one: it records the job as
 *    infrastructure_failure (nothing ran). A caller killed before the record
 *    leaves nothing to do.
 * The fallback, a supervisor for this job alone fed over its stdin, is used
 * only when the home cannot have a shared one (its socket path is longer
 * than a unix socket allows, or its supervisor directory is not private to
 * this user) or none could be reached within REACH_MS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve as absolutePath } from 'node:path';
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
import { TEST_RESOLVER_ENV, TEST_UPSTREAM_CA_ENV } from '../network/egress-resolver.js';
import type { JobSecret } from '../network/egress-secrets.js';
import { encodeHandover } from './handover.js';
import type { PlannedCheck } from '../verification/verification.js';
import { openPrivateDir, parseLine, privateDirReady, readLines, socketIsOurs, socketPathFits, supervisorPaths, writeLine } from './supervisor-socket.js';

/** The supervisor's entry point: a bin file, as only a bin may exit (it lives beside bin/headspace). */
const SUPERVISOR_BIN = fileURLToPath(new URL('../../../bin/headspace-supervisor', import.meta.url));

/**
 * What the supervisor's environment keeps of the caller's: where things are
 * (PATH, HOME, the temporary directory, the Docker host) and headspace's own
 * settings. Everything else is left out, so a value the caller holds for a
 * job's --env NAME reaches the supervisor only over its socket (or pipe).
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
  /** Secrets at egress (#18 item 3): handed over with the env values, never recorded. */
  secrets: JobSecret[];
  attention: AttentionItem[];
}

export async function runDetached(ctx: EngineContext, run: DetachedRun): Promise<ResultPackage> {
  const { workspace: ws, jobId } = run;
  const store = ctx.store();
  const link = (await reachSharedSupervisor(ctx.home, jobId)) ?? (await spawnOwnSupervisor(ctx.home, jobId));
  const { owner } = link;
  let intentId: number;
  try {
    // One commit, as a foreground run's, with the supervisor as the job's owner.
    intentId = recordJob(ctx, { workspace: ws, jobId, argv: run.argv, cwd: run.cwd, env: run.env, declarations: run.declarations, owner });
  } catch (error) {
    // Nothing was recorded: the supervisor is told there is no job (a supervisor of its own exits).
    await link.handOver(null);
    throw error;
  }
  ctx.events.emit({ type: 'job.started', workspaceId: ws.id, jobId });
  crashPoint('run', 'after-intent');
  // The answer is the job as accepted (running): read before the handover, as a warm supervisor may end a short job before the caller reads again.
  const job = store.getJob(jobId)!;
  // Test resolver mode travels with this job alone, never in the supervisor's environment (#18 F4).
  const testMap = process.env[TEST_RESOLVER_ENV];
  const testCa = process.env[TEST_UPSTREAM_CA_ENV];
  await link.handOver(
    encodeHandover({
      jobId,
      intentId,
      env: run.env,
      checks: run.checks,
      ...(testMap ? { testResolverMap: testMap } : {}),
      ...(testCa ? { testUpstreamCa: testCa } : {}),
      // Secret values travel as env values do (#18 item 3): over the supervisor's socket only.
      ...(run.secrets.length > 0 ? { secrets: run.secrets } : {}),
    }),
  );

  const about = { workspace_id: ws.id, job_id: jobId };
  const under = link.shared ? `the home's shared supervisor (supervisor pid ${owner.pid})` : `a supervisor of its own (supervisor pid ${owner.pid})`;
  return jobResult(ctx, {
    verb: 'run',
    workspace: ws,
    job,
    provider: await ctx.provider(ws.provider),
    attention: [
      attentionItem('next-step', `job ${jobId} runs detached under ${under}; its result, once it ends`, {
        ...about,
        action: nextAction('wait', { jobIds: jobId }),
      }),
      attentionItem('next-step', 'its output so far', { ...about, action: nextAction('logs', { jobId, tail: 20 }) }),
      attentionItem('next-step', 'to end it', { ...about, action: nextAction('stop', { workspaceId: ws.id, jobId, apply: true }) }),
      ...run.attention,
    ],
  });
}

/** A supervisor ready to own one job: its identity for the record, and the handover (null: the record was refused, there is no job). */
interface SupervisorLink {
  owner: Owner;
  shared: boolean;
  handOver(text: string | null): Promise<void>;
}

/** The environment of a background process headspace starts for a home: its supervisor, or a batch's driver (#16). */
export function supervisorEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HEADSPACE_HOME: home };
  // Never the test resolver map (#18 F4): a shared supervisor outlives its starter, and would answer test names for every later run.
  // Never HEADSPACE_SERVE (#20): a batch's driver is the process that drives it (its pid is recorded as the driver), not a client of `headspace serve`.
  for (const [name, value] of Object.entries(process.env))
    if (KEPT_ENV.test(name) && name !== 'HEADSPACE_HOME' && name !== 'HEADSPACE_SERVE' && name !== TEST_RESOLVER_ENV && name !== TEST_UPSTREAM_CA_ENV)
      env[name] = value;
  return env;
}

/** How long a caller tries to reach (or start) the home's shared supervisor before it starts one of the job's own. */
const REACH_MS = 10_000;
/** How long a supervisor that accepted a connection may take to answer a line; past it the caller tries again. */
const ANSWER_MS = 5_000;
const MAX_STARTS = 3;
/** After the last start ended: how long a supervisor that won the home's start lock has to listen before the caller starts its own. */
const LAST_START_GRACE_MS = 1_000;

/**
 * Connects to the home's shared supervisor, starting it when none answers
 * (several callers may start one at once: its start lock leaves one, and the
 * others exit). Null when the home cannot have one (its socket path is too
 * long for a unix socket, or its directory is not private) or none could be
 * reached in time: the caller then starts a supervisor for this job alone.
 */
async function reachSharedSupervisor(home: string, jobId: string): Promise<SupervisorLink | null> {
  const paths = supervisorPaths(home);
  if (!socketPathFits(paths) || !privateDirReady(paths.dir)) return null;
  let deadline = Date.now() + REACH_MS;
  let starter: { exited: boolean } | null = null;
  let starts = 0;
  for (let delay = 5; Date.now() < deadline; delay = Math.min(delay * 2, 50)) {
    const link = await connectShared(paths.dir, jobId);
    if (link) return link;
    if ((starter === null || starter.exited) && starts < MAX_STARTS) {
      starter = startSharedSupervisor(home);
      starts++;
    } else if (starter?.exited === true && starts === MAX_STARTS) {
      // Every start ended without one to reach (each met a supervisor idling out, or the home's start lock): waiting out
      // REACH_MS (10 s) for nobody cost a caller that long. A moment for a lock winner to listen, then the job's own.
      deadline = Math.min(deadline, Date.now() + LAST_START_GRACE_MS);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
  return null;
}

/** Starts `headspace-supervisor --shared <home>` in a session of its own, no stdio of the caller's, and lets it go. */
function startSharedSupervisor(given: string): { exited: boolean } {
  // It runs in / (it may outlive the caller's working directory): a relative home is made absolute first.
  const home = absolutePath(given);
  const state = { exited: false };
  const child = spawn(process.execPath, [SUPERVISOR_BIN, '--shared', home], { detached: true, stdio: 'ignore', cwd: '/', env: supervisorEnv(home) });
  child.once('error', () => (state.exited = true));
  child.once('exit', () => (state.exited = true));
  child.unref();
  return state;
}

/**
 * One exchange with the shared supervisor (supervisor-socket.ts); null when it does not answer with its owner line
 * (gone, closing, or not ours). Its directory is opened and checked by descriptor and the socket reached through it.
 */
function connectShared(dir: string, jobId: string): Promise<SupervisorLink | null> {
  const opened = openPrivateDir(dir);
  if (opened === null) return Promise.resolve(null);
  if (!socketIsOurs(opened.socket)) {
    closeSync(opened.fd);
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const socket = connect(opened.socket);
    // The connect has resolved the path (or failed) once either event comes: the descriptor is no longer needed.
    const closeDir = () => {
      if (opened.fd >= 0) closeSync(opened.fd);
      opened.fd = -1;
    };
    socket.once('connect', closeDir);
    socket.once('error', closeDir);
    let linked = false;
    let onAnswer: (() => void) | null = null;
    const timer = setTimeout(() => socket.destroy(), ANSWER_MS);
    const ended = () => {
      clearTimeout(timer);
      if (!linked) resolve(null);
      onAnswer?.();
    };
    socket.once('error', ended);
    socket.once('close', ended);
    socket.once('connect', () => writeLine(socket, { v: 1, job: jobId }));
    readLines(socket, (line) => {
      const message = parseLine(line);
      if (linked) return onAnswer?.();
      const owner = message?.owner as Owner | undefined;
      if (typeof owner?.pid !== 'number') return void socket.destroy();
      linked = true;
      // No clock while the caller records: a connection cut then would read to the supervisor as a caller that died.
      clearTimeout(timer);
      resolve({
        owner: { pid: owner.pid, started: typeof owner.started === 'string' ? owner.started : null },
        shared: true,
        // The caller's answer stands whatever the supervisor does next: one that dies now leaves a job under a dead owner, which reconcile settles.
        handOver: (text) =>
          new Promise<void>((done) => {
            onAnswer = () => {
              clearTimeout(timer);
              socket.destroy();
              done();
            };
            if (socket.destroyed) return onAnswer();
            timer.refresh();
            writeLine(socket, text ?? { v: 1, none: true });
          }),
      });
    });
  });
}

/** The fallback: a supervisor for this job alone, waiting on its stdin for the handover. */
async function spawnOwnSupervisor(home: string, jobId: string): Promise<SupervisorLink> {
  const child = await startSupervisor(home, jobId);
  return { owner: { pid: child.pid!, started: processStartTime(child.pid!) }, shared: false, handOver: (text) => closeHandover(child, text ?? '') };
}

/** Spawns the supervisor in a session of its own, its stdout and stderr not the caller's, waiting on its stdin. */
function startSupervisor(home: string, jobId: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SUPERVISOR_BIN, jobId], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: supervisorEnv(home) });
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
