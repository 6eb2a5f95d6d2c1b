/**
 * The entry of a detached run's supervisor (bin/headspace-supervisor): not
 * part of the library surface. Two modes:
 *  - `--shared <home>`: the home's shared supervisor
 *    (core/run/shared-supervisor.ts), which takes jobs over its socket and
 *    exits once idle for HEADSPACE_SUPERVISOR_IDLE_MS (default 30 s);
 *  - `<jobId>`: the fallback, one process for one job, whose handover is
 *    read from stdin to its end (the caller closes it). Used only where the
 *    home's socket path is too long for a unix socket or the shared one
 *    could not be reached (core/run/detach-job.ts).
 * Either builds one engine on the home with the registered providers and
 * runs jobs through core/run/supervise-job.ts.
 */
import { createEngine } from '../core/engine.js';
import { defaultHome } from '../core/context.js';
import { MAX_HANDOVER_BYTES } from '../core/run/handover.js';
import { serveSharedSupervisor } from '../core/run/shared-supervisor.js';
import { packageVersion } from '../core/version.js';
import { PROVIDERS, defaultProviderName } from '../providers/registry.js';

/** How long the shared supervisor stays up with no job and no caller. */
const DEFAULT_IDLE_MS = 30_000;

async function readHandover(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_HANDOVER_BYTES) return '';
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function engineFor(home: string) {
  return createEngine({ home, providers: PROVIDERS, defaultProvider: defaultProviderName(), version: packageVersion() });
}

function idleMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.HEADSPACE_SUPERVISOR_IDLE_MS);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_IDLE_MS;
}

/** Returns the supervisor's exit status: 0 once its jobs have their terminal records (or there was no job to run), 1 when it could not run. */
export async function superviseFromStdin(argv: readonly string[], stdin: NodeJS.ReadableStream, env: NodeJS.ProcessEnv): Promise<number> {
  if (argv[0] === '--shared') {
    const home = argv[1];
    if (typeof home !== 'string' || home === '') return 1;
    const engine = engineFor(home);
    try {
      const served = await serveSharedSupervisor({ home, supervise: (jobId, handover) => engine.superviseJob(jobId, handover), idleMs: idleMs(env) });
      return served === 'unusable' ? 1 : 0;
    } catch {
      // No stdout, no stderr here: jobs left running under this dead owner are what reconcile and doctor report.
      return 1;
    } finally {
      engine.close();
    }
  }
  const jobId = argv[0];
  if (typeof jobId !== 'string' || jobId === '') return 1;
  const handover = await readHandover(stdin).catch(() => '');
  const engine = engineFor(env.HEADSPACE_HOME ?? defaultHome());
  try {
    await engine.superviseJob(jobId, handover);
    return 0;
  } catch {
    // Nothing to tell anyone here (no stdout, no stderr): the job stays recorded running under a dead owner, which reconcile and doctor report.
    return 1;
  } finally {
    engine.close();
  }
}
