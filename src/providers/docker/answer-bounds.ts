import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';

/**
 * Every Engine API call the docker and swarm providers make waits a bounded
 * time for its answer. An engine that accepts a connection and never answers
 * (a hung dockerd, a frozen node, a proxy that stalls) held a job's `run`
 * past its wall clock, and `put`, `export`, `destroy` and a swarm run's
 * liveness check forever: the probe and the workspace lookup were bounded one
 * call at a time, the job's own calls were not. The bound is set here, once,
 * at the one place every call goes through (docker-modem's `dial`), so a call
 * added later is bounded too.
 *
 * What is bounded is the ANSWER: a plain call's whole response, a streaming
 * call's response head (an exec's hijacked stream, an archive, the event log).
 * A stream that has started lives on: a job's output stream lasts as long as
 * the job, which the engine's wall clock bounds, and the docker provider ends
 * a job's stream itself when the engine goes quiet after that clock fired
 * (docker-provider.ts `run`). A streamed body other than an exec's is bounded
 * by its idleness instead: no byte for the bound, and it ends with an error.
 */

/** How long any Engine API call waits for its answer, by default (the probe's bound too). */
export const ANSWER_BOUND_MS = 10_000;

/**
 * A container's `wait` answers when the container exits: the one-shot helpers
 * (the volume's chown, a tool lookup) do seconds of work, so they get a
 * minute, not the default. So does a restart (a job that resisted its stop,
 * docker-provider.ts), which answers once the container is up again.
 */
export const CONTAINER_WAIT_BOUND_MS = 60_000;

/**
 * Removing a container or a volume answers when its files are gone: a volume of two million files took ~20 s on a
 * healthy engine, which the default bound reported as unverified. HEADSPACE_DOCKER_REMOVAL_SECONDS sets it (1 to
 * 3,600) for an engine whose volumes hold more.
 */
export const REMOVAL_BOUND_MS = 120_000;

function removalBoundMs(): number {
  const given = Number(process.env.HEADSPACE_DOCKER_REMOVAL_SECONDS);
  return Number.isInteger(given) && given >= 1 && given <= 3600 ? given * 1000 : REMOVAL_BOUND_MS;
}

/**
 * A call that sends a body (an archive put) is answered after the body is
 * sent: the bound grows by a second per MiB, so a large put to a remote
 * engine over a slow link is not cut short while it is still sending.
 */
const MS_PER_MIB_SENT = 1_000;

/** The part of docker-modem's dial options this looks at (the rest passes through untouched). */
export interface DialShape {
  path?: string;
  method?: string;
  file?: unknown;
  hijack?: boolean;
  isStream?: boolean;
  abortSignal?: AbortSignal;
  options?: unknown;
}

/** How long a call may wait for its answer, from its options: the default, a container wait's, plus its body's share. */
export function answerBoundMs(options: DialShape): number {
  const path = (options.path ?? '').split('?')[0]!;
  const unversioned = path.replace(/^\/v\d+\.\d+(?=\/)/, '');
  const base = /^\/containers\/[^/]+\/(wait|restart)$/.test(unversioned)
    ? CONTAINER_WAIT_BOUND_MS
    : options.method === 'DELETE' && /^\/(containers|volumes)\/[^/]+$/.test(unversioned)
      ? removalBoundMs()
      : ANSWER_BOUND_MS;
  return base + Math.floor(sentBytes(options) / (1024 * 1024)) * MS_PER_MIB_SENT;
}

/**
 * The call in words, for its error: its method and its path's first and last parts (`PUT containers archive`),
 * without ids, and without slashes, which would read as a host path to the caller-facing redaction.
 */
export function callName(options: DialShape): string {
  const parts = (options.path ?? '')
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '' && !/^v\d+\.\d+$/.test(p));
  const named = parts.length <= 2 ? parts.slice(0, 1) : [parts[0]!, parts[parts.length - 1]!];
  return [options.method ?? 'GET', ...named.map((p) => p.replace(/[^A-Za-z_-]/g, ''))].join(' ');
}

function sentBytes(options: DialShape): number {
  if (Buffer.isBuffer(options.file)) return options.file.length;
  if (typeof options.file === 'string') return Buffer.byteLength(options.file);
  return 0;
}

/** What to do about an engine that is up but silent: also the hint of every failure it causes (docker, swarm). */
export const SILENT_ENGINE_HINT =
  'the engine took the connection but did not answer: see whether it is alive (docker info), restart it if it hangs, then try again; doctor checks the provider';

/**
 * The error a call ends with when its answer did not come in time. A provider failure (exit 7) with the remedy
 * for an engine that is up but silent, wherever it surfaces: as a plain Error it reached callers that did not
 * wrap it as an "internal error … a headspace bug" (red team, session 18).
 */
export class EngineSilentError extends ProviderError {
  constructor(what: string, ms: number) {
    super(`no answer within ${ms / 1000} s (${what})`, {
      hint: SILENT_ENGINE_HINT,
      action: nextAction('doctor'),
    });
    this.name = 'EngineSilentError';
  }
}

/** Did this failure come from an engine that did not answer (itself, or the error a provider wrapped it in)? */
export function isEngineSilence(error: unknown): boolean {
  return error instanceof EngineSilentError || (error instanceof Error && error.cause instanceof EngineSilentError);
}

type DialCallback = (error: unknown, data: unknown) => void;
interface Modem {
  dial(options: DialShape, callback: DialCallback): unknown;
}

/**
 * Wraps `modem.dial` so every call is bounded: past its bound the request is
 * destroyed (through the abort signal docker-modem hands to http.request, so
 * no socket is left open to a silent engine) and the caller gets an
 * EngineSilentError. A caller's own abort signal still aborts the call.
 */
export function boundAnswers(modem: Modem): void {
  const dial = modem.dial.bind(modem);
  modem.dial = (options, callback) => {
    const ms = answerBoundMs(options);
    const what = callName(options);
    const controller = new AbortController();
    const theirs = options.abortSignal;
    if (theirs !== undefined) {
      if (theirs.aborted) controller.abort(theirs.reason);
      else theirs.addEventListener('abort', () => controller.abort(theirs.reason), { once: true });
    }
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      controller.abort();
    }, ms);
    return dial({ ...options, abortSignal: controller.signal }, (error, data) => {
      clearTimeout(timer);
      if (late) return callback(new EngineSilentError(what, ms), null);
      if (error === null || error === undefined) boundIdleBody(data, options, what);
      callback(error, data);
    });
  };
}

/**
 * A streamed answer other than an exec's hijacked stream (an archive, the
 * event log) ends with an EngineSilentError after ANSWER_BOUND_MS without a
 * byte. An exec's stream is left alone: a job may print nothing for hours.
 */
function boundIdleBody(data: unknown, options: DialShape, what: string): void {
  if (options.hijack === true || options.isStream !== true) return;
  const body = data as Partial<Readable> | null;
  const socket = (body as { socket?: Socket | null } | null)?.socket;
  if (body === null || socket === null || socket === undefined || typeof body.destroy !== 'function' || typeof body.once !== 'function') return;
  const onIdle = () => body.destroy!(new EngineSilentError(`${what}: its answer stopped`, ANSWER_BOUND_MS));
  socket.setTimeout(ANSWER_BOUND_MS);
  socket.on('timeout', onIdle);
  // A kept-alive socket serves another call once this answer ends: it must not carry this bound with it.
  body.once('close', () => {
    socket.removeListener('timeout', onIdle);
    socket.setTimeout(0);
  });
}
