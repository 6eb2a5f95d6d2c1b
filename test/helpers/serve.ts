/** Helpers for the `headspace serve` tests (#20): a foreground server as a child, and who serves a home. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, assertBuilt } from './cli.js';

export function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake', ...extra };
}

export interface Served {
  child: ChildProcess;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** Starts `headspace serve ARGS` in the foreground (bin = another copy of the bin, for skew). */
export function startServe(home: string, args: string[] = [], bin = BIN, env: Record<string, string> = {}): Served {
  assertBuilt();
  const child = spawn(bin, ['serve', ...args], { env: baseEnv(home, env) });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return { child, exited, stdout: () => out, stderr: () => err };
}

/** Polls (never a fixed sleep) until `check` holds, up to `ms`. */
export async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function socketOf(home: string): string {
  return join(home, 'serve', 'sock');
}

/** The pids of processes running `headspace serve` with this HEADSPACE_HOME (from /proc). */
export function serversOf(home: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const at = argv.findIndex((a) => a.endsWith('/headspace'));
        if (at < 0 || argv[at + 1] !== 'serve' || argv.includes('--stop')) return [];
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        return env.includes(`HEADSPACE_HOME=${home}`) ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

export function listening(home: string): boolean {
  return existsSync(socketOf(home));
}
