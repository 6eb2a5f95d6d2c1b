// The thin client of `headspace serve` (#20), for HEADSPACE_SERVE=auto|require.
// It must not load the CLI bundle (dist/cli-bundle/main.cjs): that load is
// what a resident engine saves. It sends the call (argv, cwd, env, stdin when
// argv names `-`, TTY facts) over the home's unix socket in the frames of
// src/cli/serve/serve-frames.ts, copies the answer's stdout and stderr bytes
// through in order, forwards SIGINT/SIGTERM, and returns the exit code.
//
// Returns null when the call should run in-process instead: HEADSPACE_SERVE=auto
// and no server could be reached or started (the in-process path is the same
// code, so only the time differs). Under HEADSPACE_SERVE=require it never
// falls back: exit 2 with the remedy, written as the CLI writes errors.
'use strict';
const { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } = require('node:fs');
const { isAbsolute, join, resolve } = require('node:path');
const { buildInfo } = require('./build-info.cjs');

/**
 * Commands that run in the caller's own process: those that are not calls (a server, or a long-lived one), and
 * probe, whose inherited-limits scenario sets the process's umask to 002 for a moment (to see that a job does not
 * inherit it): in the server, the files other callers' calls made meanwhile would get it (tens of seconds of
 * escape attempts gain nothing from a resident engine anyway).
 */
const IN_PROCESS = new Set(['serve', 'mcp', 'ui', 'probe']);
/** How long a started server may take to listen (node start and bundle load, on a loaded machine). */
const START_MS = 15_000;
const MAX_SOCKET_PATH_BYTES = 107;

function frame(type, payload) {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

// Joins a frame's chunks once it is whole (see serve-frames.ts: joining on every chunk is quadratic).
function frameReader(onFrame) {
  let chunks = [];
  let total = 0;
  return (chunk) => {
    chunks.push(chunk);
    total += chunk.length;
    while (total >= 5) {
      if (chunks[0].length < 5) chunks = [Buffer.concat(chunks, total)];
      const length = chunks[0].readUInt32BE(1);
      if (total < 5 + length) break;
      const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      const type = whole.toString('latin1', 0, 1);
      const body = whole.subarray(5, 5 + length);
      const rest = whole.subarray(5 + length);
      chunks = rest.length === 0 ? [] : [rest];
      total = rest.length;
      onFrame(type, body);
    }
  };
}

class Unavailable extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

/** src/cli/serve/serve-server.ts START_REPORT_ENV: the descriptor a started server reports a refused start on. */
const START_REPORT_ENV = 'HEADSPACE_SERVE_START_REPORT_FD';
const START_REPORT_MAX = 8192;

/**
 * The home's serve directory, opened and checked by descriptor: a directory of
 * this user's that only this user can enter (mode 0700), never followed
 * through a link. The socket is then reached through that descriptor
 * (/proc/self/fd/N/sock), so the directory connected to is the one checked:
 * checked by path and connected by path, a home another user could write in
 * let that user swap `serve` for a folder of theirs between the two, take the
 * call with its whole environment, and answer it (red team, session 11).
 * Returns { fd, socket (the path through the descriptor), shown (the real
 * path, for messages), present }; the caller closes fd. Any failure to look
 * (a home that is a file, or that this user cannot enter) is Unavailable.
 */
function openServeDir(env) {
  const home = env.HEADSPACE_HOME || join(require('node:os').homedir(), '.headspace');
  const dir = join(home, 'serve');
  const shown = join(dir, 'sock');
  if (Buffer.byteLength(shown) > MAX_SOCKET_PATH_BYTES)
    throw new Unavailable(`the serve socket's path is longer than a unix socket's ${MAX_SOCKET_PATH_BYTES} bytes: ${shown}`);
  let fd;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    if (error.code === 'ENOENT') return { fd: null, socket: shown, shown, present: false };
    throw new Unavailable(`${dir} cannot be opened as a directory (${error.code ?? error.message}); a link is never followed`);
  }
  try {
    const st = fstatSync(fd);
    if (!(st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o077) === 0))
      throw new Unavailable(`${dir} is not a directory of this user's that only this user can enter (mode 0700)`);
    const socket = `/proc/self/fd/${fd}/sock`;
    const sock = lstatSync(socket, { throwIfNoEntry: false });
    if (sock && !(sock.isSocket() && sock.uid === process.getuid())) throw new Unavailable(`${shown} is not a socket of this user's`);
    return { fd, socket, shown, present: sock !== undefined };
  } catch (error) {
    closeSync(fd);
    if (error instanceof Unavailable) throw error;
    throw new Unavailable(`${shown} cannot be checked (${error.code ?? error.message})`);
  }
}

/** Connects to the serve socket, if there is one, through its checked directory; null when none answers. */
async function connectChecked(env) {
  const where = openServeDir(env);
  if (!where.present) {
    if (where.fd !== null) closeSync(where.fd);
    return { socket: null, shown: where.shown };
  }
  try {
    return { socket: await connectTo(where.socket), shown: where.shown };
  } finally {
    closeSync(where.fd);
  }
}

function connectTo(path) {
  const net = require('node:net');
  return new Promise((resolve) => {
    const socket = net.connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(null));
  });
}

/** Connects to the home's server, starting a detached one when none listens; null when none answers within START_MS. */
async function reachServer(env) {
  let reached = await connectChecked(env);
  if (reached.socket) return reached.socket;
  const { spawn } = require('node:child_process');
  // HEADSPACE_SERVE_IDLE_SECONDS: the idle time of a server started here (serve's --idle; default 300).
  const idle = /^[1-9][0-9]{0,8}$/.test(env.HEADSPACE_SERVE_IDLE_SECONDS ?? '') ? ['--idle', env.HEADSPACE_SERVE_IDLE_SECONDS] : [];
  // No stdout or stderr (the server outlives this call); fd 3 carries why, should it refuse to start.
  const child = spawn(process.execPath, [join(__dirname, 'headspace'), 'serve', ...idle], {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    cwd: '/',
    env: { ...env, [START_REPORT_ENV]: '3' },
  });
  child.unref();
  const reportPipe = child.stdio[3];
  reportPipe.unref?.();
  let report = '';
  reportPipe.on('data', (chunk) => {
    if (report.length < START_REPORT_MAX) report += chunk.toString('utf8');
  });
  reportPipe.on('error', () => undefined);
  const reportEnded = new Promise((r) => reportPipe.once('close', r));
  // A server that refuses to start (an unsafe home, a bad socket path) exits at once: say so then, not after START_MS.
  let exited = null;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  const deadline = Date.now() + START_MS;
  try {
    for (let wait = 2; Date.now() < deadline; wait = Math.min(wait * 2, 50)) {
      await new Promise((r) => setTimeout(r, wait));
      const gone = exited;
      reached = await connectChecked(env);
      if (reached.socket) return reached.socket;
      // Gone before this connect, which still found none: not another server that won the start (it would be listening).
      if (gone !== null) {
        await Promise.race([reportEnded, new Promise((r) => setTimeout(r, 1000))]);
        throw refusedStart(gone, report);
      }
    }
  } finally {
    reportPipe.destroy();
  }
  throw new Unavailable(`no headspace serve listened on ${reached.shown} within ${START_MS / 1000} s of starting one`);
}

/** Why the server started for this call exited without listening: its own words when it sent them, else its exit. */
function refusedStart(exit, report) {
  let said = null;
  try {
    said = JSON.parse(report.split('\n')[0]);
  } catch {
    // Nothing sent (killed, or crashed before it could say): the exit alone.
  }
  if (said === null || typeof said.message !== 'string')
    return new Unavailable(`the headspace serve started for this call exited (${exit}) without listening; run \`headspace serve\` to see why`);
  return new Unavailable(
    `the headspace serve started for this call refused to start: ${said.message.slice(0, 2000)}`,
    typeof said.hint === 'string' ? said.hint.slice(0, 2000) : undefined,
  );
}

/** The request's stdin: all of it when a word of argv is `-` (a verb reads it whole then), else none. */
function stdinOf(argv) {
  if (!argv.some((a) => a === '-' || a.endsWith('=-'))) return {};
  try {
    return { stdin: readFileSync(0) };
  } catch (error) {
    return { stdinError: error.code ?? 'EIO' };
  }
}

/** One attempt: 'restart' when the server would not answer this build or environment (it is going away). */
function exchange(socket, argv, build, input) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) if (typeof value === 'string') env[name] = value;
  const out = process.stdout;
  const err = process.stderr;
  const header = {
    v: 1,
    build,
    argv,
    cwd: process.cwd(),
    env,
    stdoutIsTty: Boolean(out.isTTY),
    stderrIsTty: Boolean(err.isTTY),
    ...(out.isTTY ? { stdoutColumns: out.columns, stdoutHasColors: out.hasColors?.() === true } : {}),
    ...(err.isTTY ? { stderrColumns: err.columns, stderrHasColors: err.hasColors?.() === true } : {}),
    ...(input.stdin ? { stdin: true } : {}),
    ...(input.stdinError ? { stdinError: input.stdinError } : {}),
    // The server answers only a caller of its own umask (the files a call makes get the caller's modes).
    umask: process.umask(),
  };
  return new Promise((resolve) => {
    let settled = false;
    const onSignal = (signal) => socket.write(frame('S', signal));
    const signals = ['SIGINT', 'SIGTERM'];
    for (const s of signals) process.on(s, onSignal);
    const finish = (result) => {
      if (settled) return;
      settled = true;
      for (const s of signals) process.off(s, onSignal);
      resolve(result);
    };
    const read = frameReader((type, body) => {
      if (type === 'O') out.write(body);
      else if (type === 'E') err.write(body);
      else if (type === 'X') {
        const code = Number(body.toString('latin1'));
        // The exit waits for both streams to hand their bytes to the OS.
        out.write('', () => err.write('', () => finish(code)));
      } else if (type === 'K') finish('restart');
      else if (type === 'D') {
        // No handler took the signal: end by it, as the in-process CLI's default action would.
        for (const s of signals) process.off(s, onSignal);
        process.kill(process.pid, body.toString('latin1'));
      }
    });
    socket.on('data', read);
    socket.on('error', () => undefined);
    socket.on('close', () => finish('lost'));
    socket.write(frame('H', JSON.stringify(header)));
    if (input.stdin) socket.write(frame('I', input.stdin));
  });
}

/** The error a CLI call prints, text or --json (src/cli/render-error.ts's form), for HEADSPACE_SERVE=require. */
function refuse(argv, message, hint) {
  const line = argv.includes('--json')
    ? `${JSON.stringify({ code: 2, message, remediation: hint, category: 'environment_error', reason: 'SERVE_UNAVAILABLE' })}\n`
    : `error: ${message.replace(/[\x00-\x1f\x7f]/g, '?')}\nhint: ${hint}\n`;
  return new Promise((resolve) => process.stderr.write(line, () => resolve(2)));
}

/**
 * The exit code of the call answered by the home's server; or, to run it
 * in-process (auto only), null, or { stdin } when the stdin it needs was
 * already read.
 */
async function callThroughServer(argv, mode) {
  if (argv.length > 0 && IN_PROCESS.has(argv[0])) return null;
  // A working directory that was removed cannot be sent; in-process, only a relative path would need it (and fail as it always has).
  try {
    process.cwd();
  } catch {
    return null;
  }
  // A relative home names a directory from the caller's: the server started for it runs in /, so it is made absolute
  // here, for the server, the request and an in-process fallback alike (red team, session 11: a server in /rel).
  const home = process.env.HEADSPACE_HOME;
  if (home && !isAbsolute(home)) process.env.HEADSPACE_HOME = resolve(home);
  const require_ = mode === 'require';
  const info = buildInfo();
  if (!info) {
    if (!require_) return null;
    return refuse(argv, 'HEADSPACE_SERVE=require, but this build has no CLI bundle for a server to run', 'run `npm run build`, or unset HEADSPACE_SERVE');
  }
  // Read once, after a server answered the connect: a call that falls back in-process gets the same bytes.
  let input = null;
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const socket = await reachServer(process.env);
      input ??= stdinOf(argv);
      const result = await exchange(socket, argv, info.build, input);
      if (typeof result === 'number') return result;
      // A server that ended mid-call may have done part of it: never run it again.
      if (result === 'lost')
        return refuse(
          argv,
          'the headspace server ended before answering',
          'see whether the call took effect (headspace ls), then try again; unset HEADSPACE_SERVE to run calls in-process',
        );
    }
    throw new Unavailable('the headspace server kept refusing this build or environment');
  } catch (error) {
    if (!(error instanceof Unavailable)) throw error;
    if (!require_) return input?.stdin ? { stdin: input.stdin } : null;
    return refuse(
      argv,
      `HEADSPACE_SERVE=require: ${error.message}`,
      error.hint
        ? `${error.hint}; or unset HEADSPACE_SERVE to run calls in-process`
        : 'start one with `headspace serve`, fix what the message names, or unset HEADSPACE_SERVE to run calls in-process',
    );
  }
}

module.exports = { callThroughServer, frame, frameReader };
