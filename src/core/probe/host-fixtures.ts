/**
 * Host-side fixtures for the containment probes: canary files, listeners on
 * the host's loopback and on unix sockets, and a scan of the host's /proc for
 * processes carrying a marker. Each fixture has a close/remove step, and
 * run-probe calls it in `finally`, so nothing the probe plants outlives it.
 *
 * Listeners bind 127.0.0.1 or a filesystem/abstract unix socket only: the
 * probe never sends traffic off the machine.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function randomToken(): string {
  return randomBytes(12).toString('hex');
}

/** A directory in the host's temp dir, world-searchable so only the sandbox can stop a job reaching it. */
export async function makeHostDir(label: string, mode: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `hsprobe-${label}-`));
  await chmod(dir, mode);
  return dir;
}

/** Writes a world-readable canary file with random content; returns its path and content. */
export async function plantCanaryFile(dir: string): Promise<{ path: string; content: string }> {
  const content = `hsprobe-canary-${randomToken()}`;
  const path = join(dir, `hsprobe-canary-${randomToken().slice(0, 8)}`);
  await writeFile(path, `${content}\n`, { mode: 0o644 });
  await chmod(path, 0o644);
  return { path, content };
}

export async function removePath(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(() => undefined);
}

export interface HostListener {
  /** TCP port, or the socket path. */
  address: string | number;
  /** Connections the host accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * Listens on `127.0.0.1:<random port>` (or a unix socket path, abstract when
 * it starts with NUL) and greets every connection with `greeting`.
 */
export async function openListener(where: { tcp: true } | { path: string }, greeting: string): Promise<HostListener> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.end(`${greeting}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('tcp' in where) server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
    else server.listen({ path: where.path }, () => resolve());
  });
  if (!('tcp' in where) && !where.path.startsWith('\0')) await chmod(where.path, 0o666).catch(() => undefined);
  const bound = server.address();
  const address = 'tcp' in where ? (typeof bound === 'object' && bound !== null ? bound.port : 0) : where.path;
  return {
    address,
    accepted: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface MarkedProcess {
  pid: number;
  /** The four host uids (real, effective, saved, filesystem) from /proc/<pid>/status. */
  uids: number[];
  /** CapEff as the host reads it (hex). */
  capEff: string;
  command: string;
  /** True when it lives in a pid namespace below the host's (inside a sandbox), from NSpid. */
  nested: boolean;
}

/**
 * Every host process whose environment holds `NAME=value`, read from the
 * host's own /proc (root reads every process; otherwise only our own uid's).
 */
export async function findMarkedProcesses(name: string, value: string): Promise<MarkedProcess[]> {
  const needle = Buffer.from(`\0${name}=${value}\0`);
  const found: MarkedProcess[] = [];
  const entries = await readdir('/proc').catch(() => [] as string[]);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environ = await readFile(`/proc/${entry}/environ`).catch(() => null);
    if (environ === null || !Buffer.concat([Buffer.from([0]), environ]).includes(needle)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const cmdline = await readFile(`/proc/${entry}/cmdline`).catch(() => Buffer.alloc(0));
    found.push({
      pid: Number(entry),
      uids: (/^Uid:\s+(.*)$/m.exec(status)?.[1] ?? '').split(/\s+/).filter(Boolean).map(Number),
      capEff: /^CapEff:\s+(\S+)$/m.exec(status)?.[1] ?? '?',
      command: cmdline.toString('utf8').split('\0').filter(Boolean).join(' ').slice(0, 80),
      nested: (/^NSpid:\s+(.*)$/m.exec(status)?.[1] ?? '').split(/\s+/).filter(Boolean).length > 1,
    });
  }
  return found;
}

/** SIGKILLs the given pids; a pid already gone is fine. */
export function killProcesses(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** Can the host still start a process? The "host unaffected" check after a bomb or a hog. */
export function hostCanSpawn(): boolean {
  const result = spawnSync('/bin/sh', ['-c', 'exit 0'], { timeout: 5000 });
  return result.status === 0;
}

/** Polls `check` every `intervalMs` until `signal` aborts. */
export async function pollUntilAborted(signal: AbortSignal, intervalMs: number, check: () => Promise<void>): Promise<void> {
  while (!signal.aborted) {
    await check();
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, intervalMs);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
