/**
 * The fake provider's command interpreter: runs one command of the scripted
 * language (fake-commands.ts lists it) as part of a simulated job. Each
 * command is a small, deterministic behaviour, so the whole engine is
 * testable with no host isolation; what a command does to the job (its
 * memory peak, an OOM kill, files it writes) lands on the FakeJobRun and the
 * shared state, never anywhere else.
 */
import type { Clock } from '../../core/clock.js';
import { nameBytes } from '../../core/name-text.js';
import { normalizeRawWorkspacePath, normalizeWorkspacePath } from '../../core/paths.js';
import type { LimitName } from '../../core/policy/policy.js';
import type { JobOutcome, RunRequest } from '../../core/provider.js';
import { isOwnerAlive } from '../../core/store/owner.js';
import { traceLines } from './fake-commands.js';
import { need, recount, removeUnder, type FakeStore } from './fake-state.js';

/** One simulated job while it runs: what its commands read, and what they change. */
export interface FakeJobRun {
  readonly request: RunRequest;
  readonly store: FakeStore;
  readonly clock: Clock;
  /** Limits the fake was configured not to enforce. */
  readonly cannot: ReadonlySet<LimitName>;
  /** The simulated job's own peak, until another job runs beside it: then the workspace's, as a shared cgroup's is. */
  usage: JobOutcome['usage'] & { maxMemoryBytes: number };
  /** Another job of the workspace ran beside this one. */
  shared: boolean;
  oomKilled: boolean;
  signal: string | null;
  /** A stop was asked for this job (read from the shared state, so another process's stop counts). */
  stopped(): boolean;
}

/** Runs one command; its exit status, or null when the "kernel" killed it. */
export async function runFakeCommand(job: FakeJobRun, command: string[]): Promise<number | null> {
  const [name, ...args] = command as [string, ...string[]];
  switch (name) {
    case 'echo':
      out(job, 'stdout', `${args.join(' ')}\n`);
      return 0;
    case 'stderr':
      out(job, 'stderr', `${args.join(' ')}\n`);
      return 0;
    case 'true':
      return 0;
    case 'false':
      return 1;
    case 'fail':
    case 'exit': {
      const code = Number(args[0] ?? 1);
      if (name === 'fail') out(job, 'stderr', `error: failing with status ${code}\n`);
      return Number.isInteger(code) && code >= 0 && code <= 255 ? code : 2;
    }
    case 'sleep': {
      // A stop ends a sleep as it ends `block`: before, `stop --apply` on a sleeping
      // job waited out the provider's 5 s and read infrastructure_failure (#12 item 22).
      const wake = new AbortController();
      const onAbort = () => wake.abort();
      job.request.signal.addEventListener('abort', onAbort, { once: true });
      const watch = setInterval(() => job.stopped() && wake.abort(), 20);
      try {
        if (job.request.signal.aborted) wake.abort();
        await job.clock.sleep(Number(args[0] ?? 0) * 1000, wake.signal);
      } finally {
        clearInterval(watch);
        job.request.signal.removeEventListener('abort', onAbort);
      }
      return 0;
    }
    case 'block':
      while (!job.request.signal.aborted && !job.stopped()) await new Promise((r) => setTimeout(r, 20));
      // A stop arrives as TERM first: block answers like a job's TERM handler, and what it prints is kept.
      if (job.stopped()) out(job, 'stdout', 'block: TERM received from stop, ending\n');
      return 0;
    case 'alloc': {
      const bytes = Number(args[0] ?? 0);
      const budget = job.request.policy.budget.memoryBytes;
      // What the workspace's other running jobs hold counts against the same budget (a crashed job's process holds nothing).
      const others = job.store.mutate((state) => {
        const jobs = need(state, job.request.workspaceId).jobs ?? {};
        const held = Object.entries(jobs)
          .filter(([id, other]) => id !== job.request.jobId && isOwnerAlive(other.owner))
          .reduce((n, [, other]) => n + other.heldBytes, 0);
        const mine = jobs[job.request.jobId];
        if (mine !== undefined && held + bytes <= budget) mine.heldBytes = Math.max(mine.heldBytes, bytes);
        if (Object.keys(jobs).length > 1) job.shared = true;
        return held;
      });
      if (job.shared) job.usage.memoryScope = 'workspace';
      job.usage.maxMemoryBytes = Math.max(job.usage.maxMemoryBytes, Math.min(others + bytes, budget));
      if (others + bytes > budget && !job.cannot.has('memory')) {
        job.oomKilled = true;
        job.signal = 'SIGKILL';
        return null;
      }
      return 0;
    }
    case 'flood': {
      const total = Number(args[0] ?? 0);
      const line = `${'flood '.repeat(15)}\n`;
      const chunk = line.repeat(Math.ceil(65536 / line.length));
      let sent = 0;
      while (sent < total && !job.request.signal.aborted) {
        const piece = chunk.slice(0, Math.min(chunk.length, total - sent));
        out(job, 'stdout', piece);
        sent += piece.length;
        // A macrotask turn per MiB, so the engine's wall-clock timer can fire on a flood that never ends.
        if (sent % (1 << 20) < piece.length) await new Promise((r) => setImmediate(r));
      }
      return 0;
    }
    case 'trace': {
      let batch = '';
      for (const line of traceLines(Number(args[0] ?? 20000), args[1] === undefined ? -1 : Number(args[1]))) {
        batch += line;
        if (batch.length > 65536) {
          out(job, 'stdout', batch);
          batch = '';
        }
      }
      out(job, 'stdout', batch);
      return 0;
    }
    case 'write': {
      const path = inCwd(job, args[0] ?? '');
      const data = Buffer.from(args.slice(1).join(' '));
      job.store.mutate((state) => {
        const ws = need(state, job.request.workspaceId);
        if (ws.links) delete ws.links[path];
        ws.files[path] = data.toString('base64');
        recount(ws);
      });
      return 0;
    }
    case 'cat': {
      const ws = need(job.store.load(), job.request.workspaceId);
      const file = ws.files[inCwd(job, args[0] ?? '')];
      if (file === undefined) {
        out(job, 'stderr', `cat: ${args[0] ?? ''}: No such file or directory\n`);
        return 1;
      }
      job.request.onOutput('stdout', Buffer.from(file, 'base64'));
      return 0;
    }
    case 'rm': {
      const path = inCwd(job, args[0] ?? '');
      job.store.mutate((state) => {
        const ws = need(state, job.request.workspaceId);
        removeUnder(ws, path);
        recount(ws);
      });
      return 0;
    }
    case 'ln': {
      // ln -s TARGET PATH: the link's text is kept as given, never resolved.
      if (args[0] !== '-s' || args.length !== 3) {
        out(job, 'stderr', 'ln: usage: ln -s TARGET PATH\n');
        return 1;
      }
      const path = inCwd(job, args[2]!);
      return job.store.mutate((state) => {
        const ws = need(state, job.request.workspaceId);
        if (ws.files[path] !== undefined || ws.links?.[path] !== undefined) {
          out(job, 'stderr', `ln: ${args[2]}: File exists\n`);
          return 1;
        }
        ws.links = { ...ws.links, [path]: args[1]! };
        return 0;
      });
    }
    case 'chmod': {
      const mode = /^[0-7]{3,4}$/.test(args[0] ?? '') ? Number.parseInt(args[0]!, 8) & 0o777 : null;
      const path = inCwd(job, args[1] ?? '');
      return job.store.mutate((state) => {
        const ws = need(state, job.request.workspaceId);
        if (mode === null || ws.files[path] === undefined) {
          out(job, 'stderr', mode === null ? 'chmod: usage: chmod OCTAL-MODE PATH\n' : `chmod: ${args[1] ?? ''}: No such file\n`);
          return 1;
        }
        if (mode === 0o644) delete ws.modes?.[path];
        else ws.modes = { ...ws.modes, [path]: mode };
        return 0;
      });
    }
    case 'fetch':
      return fakeFetch(job, args[0] ?? '', args[1]);
    case 'env':
      out(job, 'stdout', `${job.request.env[args[0] ?? ''] ?? ''}\n`);
      return 0;
    case 'ls':
      out(
        job,
        'stdout',
        Object.keys(need(job.store.load(), job.request.workspaceId).files)
          .sort()
          .map((p) => `${nameBytes(p).toString('utf8')}\n`)
          .join(''),
      );
      return 0;
    default: {
      const ws = need(job.store.load(), job.request.workspaceId);
      let asPath: string | null = null;
      try {
        asPath = normalizeRawWorkspacePath(name);
      } catch {
        asPath = null;
      }
      if (asPath !== null && ws.files[asPath] !== undefined) {
        out(job, 'stderr', `${name}: Permission denied\n`);
        return 126;
      }
      out(job, 'stderr', `${name}: command not found\n`);
      return 127;
    }
  }
}

function out(job: FakeJobRun, stream: 'stdout' | 'stderr', text: string): void {
  job.request.onOutput(stream, Buffer.from(text));
}

/**
 * A job's relative paths start at its working directory, as they do for a
 * real process (#12 item 9). A job passes real names (a backslash is a
 * byte), as a program passes them to the kernel; files are keyed by the name
 * text form the provider contract speaks, relative to the job's --cwd
 * (itself text form).
 */
function inCwd(job: FakeJobRun, path: string): string {
  const name = normalizeRawWorkspacePath(path);
  return job.request.cwd ? normalizeWorkspacePath(`${job.request.cwd}/${name}`) : name;
}

/**
 * A simulated request (#18): the same decision the egress proxy would take
 * for the URL's host and port, recorded by the engine as evidence. Nothing
 * leaves the process; an allowed request gets a canned answer.
 */
async function fakeFetch(job: FakeJobRun, raw: string, headerFrom?: string): Promise<number> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    out(job, 'stderr', `fetch: '${raw.slice(0, 80)}' is not a URL\n`);
    return 3;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    out(job, 'stderr', `fetch: only http and https URLs are simulated\n`);
    return 1;
  }
  const egress = job.request.egress;
  if (job.request.policy.network !== 'allowlist' || egress === undefined) {
    out(job, 'stderr', `fetch: could not resolve ${url.hostname}: the workspace has no network\n`);
    return 6;
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const header = headerFrom === undefined ? undefined : { header: job.request.env[headerFrom] ?? '', tls: url.protocol === 'https:' };
  const decision = await egress.simulate(url.hostname, port, header);
  if (!decision.allowed) {
    out(job, 'stderr', `fetch: ${url.hostname}:${port} denied by the egress proxy (${decision.reason ?? 'denied'})\n`);
    return 56;
  }
  const substituted = decision.substituted ?? [];
  out(job, 'stdout', `fetch: 200 from ${url.hostname} (simulated${substituted.length > 0 ? `; ${substituted.join(', ')} substituted` : ''})\n`);
  return 0;
}
