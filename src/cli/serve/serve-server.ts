/**
 * `headspace serve` (#20): a resident engine per user and home, so a CLI call
 * costs little more than a node start. The CLI becomes a thin client
 * (bin/serve-client.cjs) when HEADSPACE_SERVE=auto|require; each request is
 * answered by the same main() the in-process CLI runs, with a CliIo made of
 * the caller's argv, cwd, env, stdin, TTY facts and signals, so results,
 * exit codes, stdout and stderr are the in-process path's.
 *
 * Requests run concurrently in this one process: nothing here (nor on the CLI
 * path) reads or changes process.cwd() or process.env for a request. What
 * the engine still reads from process.env (HEADSPACE_PROVIDER, PATH,
 * DOCKER_HOST, …: ENGINE_ENV) must be the caller's: a request whose values
 * differ is not answered — the server goes away and the client starts one
 * with its own environment, as it does for a client of another build.
 *
 * The socket: `<home>/serve/sock`, in a directory of this user's with mode
 * 0700 (refused otherwise, never followed through a link), bound under umask
 * 077 and chmodded 0600, by the shared supervisor's start lock and
 * bind-unless-live (a socket left by a killed server is replaced; a live one
 * is never taken over). Only this user (and root) can connect.
 */
import { chmodSync, closeSync, lstatSync, readFileSync, writeSync } from 'node:fs';
import { connect, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { defaultHome } from '../../core/context.js';
import { EngineError } from '../../core/errors.js';
import { refuseUnsafeHome } from '../../core/store/home-safety.js';
import { bindUnlessLive, withStartLock } from '../../core/run/shared-supervisor.js';
import { MAX_SOCKET_PATH_BYTES, privateDirReady } from '../../core/run/supervisor-socket.js';
import type { CliIo } from '../io.js';
import { enginePool } from '../open-engine.js';
import { frame, frameReader, parseServeRequest, type FrameType, type ServeRequest } from './serve-frames.js';

export interface ServeOptions {
  idleSeconds: number;
  json: boolean;
  /** The CLI's main(): each request is answered by it (passed in, so this module does not import main.ts back). */
  main: (argv: string[], io: CliIo) => Promise<number>;
}

/** The variables the engine reads from its own process.env: a request is answered only when the caller's are the server's. */
const ENGINE_ENV = /^(PATH|HOME|LANG|LC_[A-Z]+|TMPDIR|TZ|DOCKER_[A-Z_]+|SSH_AUTH_SOCK|NODE_OPTIONS|HEADSPACE_[A-Z0-9_]+)$/;
/** Names the descriptor a server the thin client started reports a refused start on (startReport). */
export const START_REPORT_ENV = 'HEADSPACE_SERVE_START_REPORT_FD';
/** Read by the client alone. */
const CLIENT_ONLY_ENV = new Set(['HEADSPACE_SERVE', 'HEADSPACE_SERVE_IDLE_SECONDS', 'HEADSPACE_TEST_SERVE', START_REPORT_ENV]);
/** A connection that sends no complete request in this long is dropped (it would hold the server up for ever). */
const HEADER_MS = 10_000;

export function servePaths(env: NodeJS.ProcessEnv): { dir: string; socket: string; startLock: string } {
  const dir = join(env.HEADSPACE_HOME || defaultHome(), 'serve');
  return { dir, socket: join(dir, 'sock'), startLock: join(dir, 'start.lock') };
}

/** This build's identity, written by scripts/build-cli-bundle.mjs; null without a bundle (the client then never comes). */
export function buildIdentity(): string | null {
  try {
    const parsed = JSON.parse(readFileSync(new URL('../../cli-bundle/build.json', import.meta.url), 'utf8')) as { build?: unknown };
    return typeof parsed.build === 'string' ? parsed.build : null;
  } catch {
    return null;
  }
}

/**
 * The umask this server started with (read when it starts). The umask is the process's, shared by every call it answers: a caller's
 * `umask 077` would not reach the files a served call makes (an export came out 0644 where in-process it was 0600;
 * red team, session 11), so a caller of another umask is not answered here, as one of another environment is not.
 */
let serverUmask: number | null = null;

/** Why a request is not answered here (the client starts a server of its own build and environment), or null. */
function mismatch(request: ServeRequest, build: string | null): string | null {
  if (request.build !== build) return 'build';
  if ((request.umask ?? null) !== serverUmask) return `umask (${(request.umask ?? 0).toString(8).padStart(3, '0')})`;
  const names = new Set([...Object.keys(process.env), ...Object.keys(request.env)].filter((n) => ENGINE_ENV.test(n) && !CLIENT_ONLY_ENV.has(n)));
  for (const name of names) if ((process.env[name] ?? null) !== (request.env[name] ?? null)) return `environment (${name})`;
  return null;
}

/** Runs the server in the foreground until it idles out, is stopped or interrupted. Returns the exit code. */
export async function serveCli(io: CliIo, options: ServeOptions): Promise<number> {
  const paths = servePaths(io.env);
  serverUmask = process.umask();
  const report = startReport(io.env);
  let server: Server | null;
  try {
    refuseUnsafeSocket(paths);
    server = await withStartLock(paths, () => bindUnlessLive(paths.socket));
    if (!server)
      throw new EngineError('SERVE_UNAVAILABLE', `a headspace serve already listens on ${paths.socket}`, {
        hint: 'use it (HEADSPACE_SERVE=auto), or stop it first with `headspace serve --stop`',
      });
  } catch (error) {
    report.refused(error);
    throw error;
  }
  report.listening();
  chmodSync(paths.socket, 0o600);
  const build = buildIdentity();
  const status = { status: 'listening', socket: paths.socket, pid: process.pid, idle_seconds: options.idleSeconds, build };
  await new Promise<void>((r) =>
    io.stdout.write(
      options.json
        ? `${JSON.stringify(status)}\n`
        : `headspace serve: listening on ${paths.socket} (pid ${process.pid}); exits after ${options.idleSeconds} s with no request; stop it with headspace serve --stop\n`,
      () => r(),
    ),
  );
  const engines = enginePool();
  try {
    await acceptUntilDone(server, io, options, build, (argv, requestIo) => options.main(argv, { ...requestIo, engines }));
  } finally {
    engines.closeAll();
  }
  return 0;
}

/**
 * The start report of a server the thin client started (bin/serve-client.cjs): a descriptor, named in
 * START_REPORT_ENV, on which a server that refuses to start writes why ({ message, hint }, one JSON line), and which
 * it closes once it listens. The client started it with no stderr (it outlives the client), so without this a
 * HEADSPACE_SERVE=require call only learnt that its server exited; the reason (an unsafe home, named) was lost.
 * The variable is the client's alone: it is removed here, so no call's environment is compared against it.
 */
function startReport(env: NodeJS.ProcessEnv): { refused(error: unknown): void; listening(): void } {
  const raw = env[START_REPORT_ENV];
  delete env[START_REPORT_ENV];
  if (process.env !== env) delete process.env[START_REPORT_ENV];
  const fd = raw !== undefined && /^[3-9]$/.test(raw) ? Number(raw) : null;
  const close = () => {
    try {
      if (fd !== null) closeSync(fd);
    } catch {
      // Not open (a server started by hand with the variable set): nothing to report to.
    }
  };
  return {
    refused(error) {
      if (fd === null) return;
      const e = error instanceof EngineError ? { message: error.message, hint: error.hint } : { message: (error as Error).message };
      try {
        writeSync(fd, `${JSON.stringify(e)}\n`);
      } catch {
        // The client is gone (another server answered it): nobody to tell.
      }
      close();
    },
    listening: close,
  };
}

function refuseUnsafeSocket(paths: { dir: string; socket: string }): void {
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH_BYTES)
    throw new EngineError('SERVE_UNAVAILABLE', `the serve socket's path is longer than a unix socket's ${MAX_SOCKET_PATH_BYTES} bytes: ${paths.socket}`, {
      hint: 'use a shorter HEADSPACE_HOME',
    });
  // First: a home another user could change is refused before anything is made in it, and the directory made below
  // could still be swapped between the check after it and the bind.
  refuseUnsafeHome(dirname(paths.dir));
  if (!privateDirReady(paths.dir))
    throw new EngineError('SERVE_UNAVAILABLE', `${paths.dir} is not a directory of this user's that only this user can enter (mode 0700)`, {
      hint: `remove it (rm -r ${paths.dir}) or make it this user's with mode 0700; a link there is never followed`,
    });
  const st = lstatSync(paths.socket, { throwIfNoEntry: false });
  if (st && !(st.isSocket() && st.uid === process.getuid!()))
    throw new EngineError('SERVE_UNAVAILABLE', `${paths.socket} is not a socket of this user's`, { hint: `remove it (rm ${paths.socket}) and start again` });
}

type Answer = (argv: string[], io: CliIo) => Promise<number>;

function acceptUntilDone(server: Server, io: CliIo, options: ServeOptions, build: string | null, answer: Answer): Promise<void> {
  /** Each open connection, with what interrupts its call. */
  const open = new Map<Socket, () => void>();
  let idle: NodeJS.Timeout | null = null;
  let closing = false;
  return new Promise<void>((resolve) => {
    const stop = () => {
      if (closing) return;
      closing = true;
      if (idle) clearTimeout(idle);
      // Closing the listener removes the socket's path: from here on a client's connect fails and it starts a new server.
      server.close(() => settle());
    };
    const settle = () => {
      if (closing) {
        if (open.size === 0) resolve();
        return;
      }
      if (idle) clearTimeout(idle);
      idle = open.size === 0 ? setTimeout(stop, options.idleSeconds * 1000) : null;
    };
    // Ctrl-C (or SIGTERM) stops accepting and lets the calls in hand finish; a second one interrupts them as their callers' Ctrl-C would.
    const offInterrupt = io.onInterrupt(() => (closing ? [...open.values()].forEach((interrupt) => interrupt()) : stop()), true);
    server.on('close', () => offInterrupt());
    server.on('connection', (socket) => {
      // Said on the server's own stderr: a server started by hand otherwise ended, exit 0, without a word.
      const stopFor = (why?: string) => {
        if (why !== undefined && !closing)
          io.stderr.write(`headspace serve: stopping: a call came with another ${why}; its client starts a server of its own\n`);
        stop();
      };
      open.set(socket, handle(socket, build, answer, stopFor));
      settle();
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        settle();
      });
    });
    settle();
  });
}

/** One connection: a request answered, a stop, or a refusal. Returns what interrupts its call (as its caller's SIGTERM would). */
function handle(socket: Socket, build: string | null, answer: Answer, stop: (mismatched?: string) => void): () => void {
  let request: ServeRequest | null = null;
  let stdin: Buffer | null = null;
  let started = false;
  const interrupts = new Set<() => void>();
  const timer = setTimeout(() => socket.destroy(), HEADER_MS);
  const send = (type: FrameType, payload: string | Buffer, done?: () => void) => {
    if (!socket.destroyed) socket.write(frame(type, payload), () => done?.());
    else done?.();
  };
  const interrupt = (signal: string) => {
    if (interrupts.size === 0) return send('D', signal);
    for (const handler of [...interrupts]) handler();
  };
  const begin = () => {
    if (started || request === null || (request.stdin === true && stdin === null)) return;
    started = true;
    clearTimeout(timer);
    const why = mismatch(request, build);
    if (why !== null) {
      // Not answered here: stop accepting first, so the client's next connect starts a server of its own build and environment.
      stop(why);
      send('K', why, () => socket.end());
      return;
    }
    void answer(request.argv, requestIo(request, stdin, send, interrupts))
      .catch(() => 7)
      .then((code) => send('X', String(code), () => socket.end()));
  };
  const read = frameReader((type, body) => {
    if (type === 'H' && request === null) {
      request = parseServeRequest(body);
      if (request === null) return void socket.destroy();
      begin();
    } else if (type === 'I' && request !== null && stdin === null) {
      stdin = body;
      begin();
    } else if (type === 'S' && started) interrupt(body.toString('latin1'));
    else if (type === 'Q' && request === null) {
      clearTimeout(timer);
      stop();
      send('X', '0', () => socket.end());
    } else socket.destroy();
  });
  socket.on('data', (chunk: Buffer) => {
    // Whatever one connection sends ends that connection at worst: thrown in a socket handler it would end the
    // server, and every call it is answering with it.
    try {
      if (!read(chunk)) socket.destroy();
    } catch {
      socket.destroy();
    }
  });
  // A client gone before its answer (killed, or its terminal closed) is an interrupt: a run it started ends as cancelled, not orphaned.
  socket.on('close', () => {
    if (started) for (const handler of [...interrupts]) handler();
    interrupts.clear();
  });
  return () => {
    for (const handler of [...interrupts]) handler();
  };
}

function requestIo(
  request: ServeRequest,
  stdin: Buffer | null,
  send: (type: FrameType, payload: string | Buffer, done?: () => void) => void,
  interrupts: Set<() => void>,
): CliIo {
  // Each write goes into the socket's own queue at once, so the X frame sent after main() returns can never overtake output still
  // waiting in a Writable's buffer (commander writes help in several writes without waiting).
  const stream = (type: 'O' | 'E') =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        send(type, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        done();
      },
    });
  return {
    stdout: stream('O'),
    stderr: stream('E'),
    env: request.env,
    cwd: request.cwd,
    readStdin: () => {
      if (request.stdinError !== undefined) throw Object.assign(new Error(`stdin: ${request.stdinError}`), { code: request.stdinError });
      return stdin ?? Buffer.alloc(0);
    },
    onInterrupt: (handler, repeat = false) => {
      const once = () => {
        if (!repeat) interrupts.delete(once);
        handler();
      };
      interrupts.add(once);
      return () => void interrupts.delete(once);
    },
    stdoutIsTty: request.stdoutIsTty === true,
    stderrIsTty: request.stderrIsTty === true,
    terminal: {
      ...(request.stdoutColumns === undefined ? {} : { stdoutColumns: request.stdoutColumns }),
      ...(request.stderrColumns === undefined ? {} : { stderrColumns: request.stderrColumns }),
      ...(request.stdoutHasColors === undefined ? {} : { stdoutHasColors: request.stdoutHasColors }),
      ...(request.stderrHasColors === undefined ? {} : { stderrHasColors: request.stderrHasColors }),
    },
  };
}

/** `headspace serve --stop`: asks the home's server to stop accepting, finish what it answers and exit. True when one was running. */
export function stopServer(env: NodeJS.ProcessEnv): Promise<boolean> {
  const { socket: path } = servePaths(env);
  const st = lstatSync(path, { throwIfNoEntry: false });
  // Only this user's socket is talked to; anything else there is not a server of ours.
  if (!st?.isSocket() || st.uid !== process.getuid!()) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write(frame('Q', '')));
    socket.once('close', () => resolve(true));
    socket.on('data', () => undefined);
  });
}
