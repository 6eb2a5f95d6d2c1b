import { readFileSync } from 'node:fs';
import type { EnginePool } from './open-engine.js';

/**
 * The CLI's only contact with the outside: streams, environment, working
 * directory, stdin and interrupts, injectable for tests and for `headspace
 * serve` (#20), where one process answers many callers at once. Nothing on
 * the CLI path reads process.cwd(), process.env, fd 0 or process signals
 * directly: a resident server must answer each request with its caller's.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** The caller's working directory: every relative host path a user gives is resolved against it. */
  cwd: string;
  /** All of the caller's stdin (a verb given `-` reads it whole; nothing else does). */
  readStdin(): Buffer;
  /** Calls `handler` on the caller's next SIGINT or SIGTERM (every one with `repeat`) until the returned function is called. */
  onInterrupt(handler: () => void, repeat?: boolean): () => void;
  /** True when stderr is a terminal (progress may be drawn). */
  stderrIsTty: boolean;
  /** True when stdout is a terminal: job-controlled bytes are then shown as escapes (#10 item 10). */
  stdoutIsTty: boolean;
  /** `headspace serve`'s engines, kept open across calls; absent, each call opens and closes its own. */
  engines?: EnginePool;
  /** The terminals' widths and colour support, for commander's help (what it would read from process.stdout/stderr). */
  terminal?: TerminalFacts;
}

export interface TerminalFacts {
  stdoutColumns?: number;
  stderrColumns?: number;
  stdoutHasColors?: boolean;
  stderrHasColors?: boolean;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    // Read when a relative path is resolved, as before: a process whose directory was removed still answers calls that name none.
    get cwd() {
      return process.cwd();
    },
    readStdin: () => readFileSync(0),
    onInterrupt: processInterrupts,
    stderrIsTty: Boolean(process.stderr.isTTY),
    stdoutIsTty: Boolean(process.stdout.isTTY),
    terminal: processTerminalFacts(),
  };
}

/** What commander would read from this process's own streams. */
export function processTerminalFacts(): TerminalFacts {
  const out = process.stdout as NodeJS.WriteStream;
  const err = process.stderr as NodeJS.WriteStream;
  return {
    ...(out.isTTY ? { stdoutColumns: out.columns, stdoutHasColors: out.hasColors?.() === true } : {}),
    ...(err.isTTY ? { stderrColumns: err.columns, stderrHasColors: err.hasColors?.() === true } : {}),
  };
}

/**
 * SIGINT/SIGTERM of this process, each delivered once per subscription (a
 * second Ctrl-C after the handler ran meets the default action and ends the
 * process, as before).
 */
function processInterrupts(handler: () => void, repeat = false): () => void {
  const onSignal = () => {
    if (!repeat) off();
    handler();
  };
  const off = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return off;
}

/** Resolves once the bytes are handed to the OS, so the bin can exit without losing output. */
export function writeAll(stream: NodeJS.WritableStream, data: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (data.length === 0) return resolve();
    stream.write(data, () => resolve());
  });
}
