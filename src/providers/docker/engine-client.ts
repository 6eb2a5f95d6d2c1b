/**
 * The Engine API calls the docker provider makes, over dockerode 5 (socket
 * from `DOCKER_HOST`, else the default path), plus the few dockerode does not
 * shape the way we need:
 *  - archive calls take the container path as BYTES, percent-encoded here:
 *    dockerode would encode a JS string as UTF-8, and a workspace name that
 *    is not UTF-8 must reach the engine as itself;
 *  - an exec's output is demultiplexed here from the hijacked stream into
 *    stdout/stderr chunks, in order, straight to the caller.
 */
import type Docker from 'dockerode';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ProviderError } from '../../core/errors.js';
import { lazyRequire } from '../../core/lazy-require.js';
import { nextAction } from '../../core/next-action.js';
import { ANSWER_BOUND_MS, EngineSilentError, boundAnswers } from './answer-bounds.js';

export type Engine = Docker;

const dockerode = lazyRequire<typeof Docker>('dockerode');

/**
 * The engine at `dockerHost` (else DOCKER_HOST, else the default socket),
 * made when first used. dockerode loads docker-modem and ssh2 with it, about
 * 250 ms of CPU a CLI call on this machine kind, and a provider is often made
 * only to be asked nothing of the engine: doctor lists every provider (with no
 * engine set up here, a socket that is not there answers it, below), and the
 * swarm provider makes its manager's before it knows there is one (#20).
 */
export function connectEngine(dockerHost?: string): Engine {
  const host = dockerHost ?? process.env.DOCKER_HOST;
  let engine: Docker | undefined;
  const real = (): Docker => {
    if (engine !== undefined) return engine;
    const Made = dockerode();
    engine = host?.startsWith('unix://') ? new Made({ socketPath: host.slice('unix://'.length) }) : new Made();
    // Every call it makes waits a bounded time for its answer (answer-bounds.ts).
    boundAnswers(engine.modem as unknown as Parameters<typeof boundAnswers>[0]);
    return engine;
  };
  // Every property read goes to the engine itself (methods bound to it), so the object behaves as dockerode's own.
  return new Proxy({} as Docker, {
    get(_target, key) {
      const target = real();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The socket path of a local engine address that has nothing at it (the
 * default /var/run/docker.sock where no engine was ever installed), else
 * undefined: what a connection would fail with (ENOENT), known without
 * loading dockerode.
 */
export function missingSocket(dockerHost?: string): string | undefined {
  const address = engineAddress(dockerHost);
  if (!address.startsWith('unix://')) return undefined;
  const path = address.slice('unix://'.length);
  return existsSync(path) ? undefined : path;
}

/** Where the engine is reached, for messages. */
export function engineAddress(dockerHost?: string): string {
  return dockerHost ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
}

/** The HTTP status an Engine API error carries (404 for a missing object), if any. */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** What `HEAD /containers/{id}/archive` says about a path (docker's own stat: the last component not followed). */
export interface PathStat {
  size: number;
  /** Go's os.FileMode: type bits high, permissions low. */
  mode: number;
  linkTarget: string;
}

const GO_MODE_DIR = 2 ** 31;
const GO_MODE_SYMLINK = 2 ** 27;
const GO_MODE_DEVICE = 2 ** 26;
const GO_MODE_PIPE = 2 ** 25;
const GO_MODE_SOCKET = 2 ** 24;
const GO_MODE_CHAR = 2 ** 21;
const GO_MODE_IRREGULAR = 2 ** 19;

export type StatKind = 'file' | 'directory' | 'symlink' | 'device' | 'fifo' | 'socket' | 'other';

export function kindOfMode(mode: number): StatKind {
  const has = (bit: number) => Math.floor(mode / bit) % 2 === 1;
  if (has(GO_MODE_DIR)) return 'directory';
  if (has(GO_MODE_SYMLINK)) return 'symlink';
  if (has(GO_MODE_DEVICE) || has(GO_MODE_CHAR)) return 'device';
  if (has(GO_MODE_PIPE)) return 'fifo';
  if (has(GO_MODE_SOCKET)) return 'socket';
  if (has(GO_MODE_IRREGULAR)) return 'other';
  return 'file';
}

/** Percent-encodes every byte that is not unreserved, so the engine decodes exactly these bytes. */
function encodeBytes(bytes: Buffer): string {
  let out = '';
  for (const b of bytes)
    out +=
      (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e || b === 0x2f
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

interface DialOptions {
  path: string;
  method: string;
  isStream?: boolean;
  file?: Buffer;
  statusCodes: Record<number, boolean | string>;
  options: Record<string, unknown>;
}

function dial<T>(engine: Engine, options: DialOptions): Promise<T> {
  // The trailing '&' is dropped by docker-modem when no further options follow.
  return new Promise((resolve, reject) =>
    (engine.modem as unknown as { dial(o: DialOptions, cb: (e: unknown, d: T) => void): void }).dial(options, (error, data) =>
      error ? reject(error) : resolve(data),
    ),
  );
}

const ARCHIVE_CODES = { 200: true, 400: 'bad parameter', 403: 'permission denied', 404: 'no such container or path', 500: 'server error' };

export async function statPath(engine: Engine, containerId: string, path: Buffer): Promise<PathStat | undefined> {
  try {
    const response = await dial<Readable & { headers: Record<string, string> }>(engine, {
      path: `/containers/${containerId}/archive?path=${encodeBytes(path)}&`,
      method: 'HEAD',
      isStream: true,
      statusCodes: ARCHIVE_CODES,
      options: {},
    });
    response.resume();
    const header = response.headers['x-docker-container-path-stat'];
    if (header === undefined)
      throw new ProviderError('the engine answered a path stat without its X-Docker-Container-Path-Stat header', {
        hint: 'use a Docker Engine with API 1.20 or later; doctor checks the docker provider',
        action: nextAction('doctor', { provider: 'docker' }),
      });
    const parsed = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { size: number; mode: number; linkTarget: string };
    return { size: parsed.size, mode: parsed.mode, linkTarget: parsed.linkTarget };
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

export async function getArchive(engine: Engine, containerId: string, path: Buffer): Promise<Readable> {
  return dial<Readable>(engine, {
    path: `/containers/${containerId}/archive?path=${encodeBytes(path)}&`,
    method: 'GET',
    isStream: true,
    statusCodes: ARCHIVE_CODES,
    options: {},
  });
}

export async function putArchive(engine: Engine, containerId: string, directory: Buffer, tar: Buffer): Promise<void> {
  // noOverwriteDirNonDir: a directory never replaces a file (nor the reverse), so a put cannot turn one into the other.
  await dial<unknown>(engine, {
    path: `/containers/${containerId}/archive?path=${encodeBytes(directory)}&noOverwriteDirNonDir=1&`,
    method: 'PUT',
    file: tar,
    statusCodes: ARCHIVE_CODES,
    options: {},
  });
}

export interface ExecSpec {
  cmd: string[];
  env: string[];
  user: string;
  workingDir: string;
}

export interface ExecResult {
  exitCode: number | null;
}

/**
 * Runs one exec to its end, streaming its output to `onOutput` frame by frame
 * (docker's 8-byte multiplex header: stream, 3 zero bytes, big-endian size).
 * Returns when the exec's process has exited and its output is drained.
 * Aborting `signal` gives up on it: its calls and its stream are destroyed and
 * this rejects with the signal's reason (the exec itself runs on in the engine
 * unless its caller ends it; a caller gives up on an engine that went quiet).
 */
export async function runExec(
  engine: Engine,
  containerId: string,
  spec: ExecSpec,
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
  signal?: AbortSignal,
  options: { watchEngine?: boolean } = {},
): Promise<{ execId: string; exitCode: number | null }> {
  const given = signal === undefined ? {} : { abortSignal: signal };
  const gaveUp = () => signal!.reason as Error;
  const exec = await engine.getContainer(containerId).exec({
    Cmd: spec.cmd,
    Env: spec.env,
    User: spec.user,
    WorkingDir: spec.workingDir,
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: false,
    Tty: false,
    ...given,
  });
  if (signal?.aborted) throw gaveUp();
  const stream = (await exec.start({ hijack: true, stdin: false, ...given })) as unknown as Readable;
  let pending: Buffer = Buffer.alloc(0);
  let heardAt = Date.now();
  let watch: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve, reject) => {
    if (options.watchEngine === true) watch = watchEngine(exec, stream, () => heardAt, given, reject);
    if (signal !== undefined) {
      const onGiveUp = () => {
        stream.destroy();
        reject(gaveUp());
      };
      if (signal.aborted) return onGiveUp();
      signal.addEventListener('abort', onGiveUp, { once: true });
      stream.once('close', () => signal.removeEventListener('abort', onGiveUp));
    }
    stream.on('data', (chunk: Buffer) => {
      heardAt = Date.now();
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 8) {
        const size = pending.readUInt32BE(4);
        if (pending.length < 8 + size) break;
        const kind = pending[0];
        const body = pending.subarray(8, 8 + size);
        pending = pending.subarray(8 + size);
        if (body.length > 0) onOutput(kind === 2 ? 'stderr' : 'stdout', Buffer.from(body));
      }
    });
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', reject);
  }).finally(() => clearInterval(watch));
  // The stream can end a moment before the engine records the exit: ask until it has.
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw gaveUp();
    const info = await exec.inspect(given);
    if (!info.Running) return { execId: exec.id, exitCode: info.ExitCode ?? null };
    if (attempt > 200) return { execId: exec.id, exitCode: null };
    await new Promise((r) => setTimeout(r, attempt < 10 ? 2 : 20));
  }
}

/**
 * While an exec's stream says nothing, asks the engine about the exec every ANSWER_BOUND_MS (each question bounded
 * itself): an engine that still answers is at work (an `rm -rf` of a large tree prints nothing for minutes), one
 * that does not has gone quiet, and the exec is given up on with that question's EngineSilentError. Only our
 * control execs are watched: a job's stream is bounded by its wall clock.
 */
function watchEngine(
  exec: Docker.Exec,
  stream: Readable,
  heardAt: () => number,
  given: { abortSignal?: AbortSignal },
  fail: (error: unknown) => void,
): NodeJS.Timeout {
  let asking = false;
  return setInterval(() => {
    if (asking || Date.now() - heardAt() < ANSWER_BOUND_MS) return;
    asking = true;
    exec.inspect(given).then(
      () => (asking = false),
      (error: unknown) => {
        if (!(error instanceof EngineSilentError)) return void (asking = false);
        stream.destroy();
        fail(error);
      },
    );
  }, ANSWER_BOUND_MS);
}

/**
 * Runs a control exec (ours, not a job) and returns its stdout text; stderr is kept for the error. It is given up
 * on when the engine stops answering about it (watchEngine); `signal` gives up on it as in runExec.
 */
export async function controlExec(
  engine: Engine,
  containerId: string,
  spec: ExecSpec,
  signal?: AbortSignal,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const { exitCode } = await runExec(
    engine,
    containerId,
    spec,
    (stream, chunk) => {
      if (stream === 'stdout') stdout += chunk.toString('utf8');
      else stderr += chunk.toString('utf8');
    },
    signal,
    { watchEngine: true },
  );
  return { exitCode, stdout, stderr };
}
