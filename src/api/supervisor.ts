/**
 * The entry of a detached run's supervisor (bin/headspace-supervisor): not
 * part of the library surface. It reads the caller's handover from stdin to
 * its end (the caller closes it), builds an engine on the home it was given
 * with the registered providers, and runs the job (core/run/supervise-job.ts).
 * Kept small: it is one process per running detached job.
 */
import { createEngine } from '../core/engine.js';
import { defaultHome } from '../core/context.js';
import { MAX_HANDOVER_BYTES } from '../core/run/handover.js';
import { packageVersion } from '../core/version.js';
import { PROVIDERS, defaultProviderName } from '../providers/registry.js';

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

/** Returns the supervisor's exit status: 0 once the job has its terminal record (or there was no job to run), 1 when it could not be run. */
export async function superviseFromStdin(argv: readonly string[], stdin: NodeJS.ReadableStream, env: NodeJS.ProcessEnv): Promise<number> {
  const jobId = argv[0];
  if (typeof jobId !== 'string' || jobId === '') return 1;
  const handover = await readHandover(stdin).catch(() => '');
  const engine = createEngine({
    home: env.HEADSPACE_HOME ?? defaultHome(),
    providers: PROVIDERS,
    defaultProvider: defaultProviderName(),
    version: packageVersion(),
  });
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
