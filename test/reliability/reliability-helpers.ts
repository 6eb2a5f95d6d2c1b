/**
 * Shared by the reliability suites: a seeded generator, the long-variant
 * switch, spawning the built bin with a SIGKILL at a chosen moment, and the
 * invariants every crash must leave true.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, assertBuilt } from '../helpers/cli.js';

/** `HEADSPACE_LONG_TESTS=1` runs the long variants (hundreds of trials, longer soaks). */
export const LONG = process.env.HEADSPACE_LONG_TESTS === '1';

/** mulberry32: small, seeded, reproducible. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function seedFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  killed: boolean;
}

export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake', ...extra };
}

/**
 * Runs the bin; SIGKILLs it after `killAfterMs` (if still running), or when
 * `killWhen` first returns true (polled every 10 ms). Resolves on exit.
 */
export function spawnCli(
  home: string,
  args: string[],
  options: { env?: Record<string, string>; killAfterMs?: number; killWhen?: () => boolean; timeoutMs?: number } = {},
): Promise<Spawned> {
  assertBuilt();
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { env: cliEnv(home, options.env) });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timers: NodeJS.Timeout[] = [];
    if (options.killAfterMs !== undefined) timers.push(setTimeout(kill, options.killAfterMs));
    if (options.killWhen) {
      const poll = setInterval(() => {
        try {
          if (options.killWhen!()) kill();
        } catch {
          // The store may be mid-write: ask again next tick.
        }
      }, 10);
      timers.push(poll);
    }
    timers.push(setTimeout(kill, options.timeoutMs ?? 60_000));
    child.on('close', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code, signal, stdout, stderr, killed: killed || signal === 'SIGKILL' });
    });
  });
}

/** `PRAGMA integrity_check` through a separate read-only connection. */
export function integrityCheck(home: string): string {
  const db = new Database(join(home, 'state.db'), { readonly: true, fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The fake provider's temporary state files and lock (they must never outlive a repair). */
export function fakeTemporaries(home: string): string[] {
  const dir = join(home, 'fake');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^state\.json\.\d+\.tmp$/.test(n) || n === 'state.json.lock')
    .map((n) => join(dir, n));
}

export function partialFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.partial') && n.includes('.headspace-'))
    .map((n) => join(dir, n));
}

/** A stack trace line, as Node prints them. Never allowed on any surface. */
export const STACK_TRACE = /^\s+at .+(\(|\s)[^\s()]+:\d+:\d+\)?$/m;
