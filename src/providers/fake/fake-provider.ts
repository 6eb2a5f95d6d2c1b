import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { EngineError, ProviderError } from '../../core/errors.js';
import { normalizeRawWorkspacePath, normalizeWorkspacePath } from '../../core/paths.js';
import { nameBytes } from '../../core/name-text.js';
import type { LimitName } from '../../core/policy/policy.js';
import { currentOwner, isOwnerAlive, type Owner } from '../../core/store/owner.js';
import type {
  FileEntry,
  JobOutcome,
  Leftover,
  ProbeResult,
  Provider,
  ProviderCapabilities,
  ReadStream,
  RemovalDisposition,
  RunRequest,
  StopOptions,
  StopReport,
  WorkspaceDescriptor,
  WorkspaceSpec,
  WriteOptions,
  HostCapacity,
} from '../../core/provider.js';
import { MAX_JOBS_AT_ONCE } from '../../core/policy/budget-fields.js';
import { splitSequence, traceLines } from './fake-commands.js';

export interface FakeProviderOptions {
  clock?: Clock;
  /**
   * Where to keep state between processes (the CLI sets it so a multi-step
   * shell session works). Without it, workspaces live in this object only.
   */
  persistPath?: string;
  /** Limits to declare unenforceable, to exercise fail-closed paths. */
  cannotEnforce?: LimitName[];
  /** Makes every call throw ProviderError: a broken backend (exit 7). */
  broken?: boolean;
  /** A host size to declare (Provider.capacity), to exercise the capacity rules at create; default none. */
  capacity?: HostCapacity;
}

interface FakeWorkspace {
  profile: string;
  files: Record<string, string>; // path -> base64
  storageBytes: number;
  storageBudget: number;
  /**
   * The jobs running now, by job id (a policy may allow several at once,
   * #12 item 8). Absent in state saved before it existed.
   */
  jobs?: Record<string, FakeJob>;
  /** The job identity the engine allocated (recorded only: nothing runs as a uid here). Absent in state saved before it existed. */
  jobUser?: { uid: number; gid: number };
}

interface FakeJob {
  /** The process running the job: a job whose process is gone is not running (crash). */
  owner: Owner;
  stopRequested: boolean;
  /**
   * Bytes its `alloc` holds until it ends: the jobs of a workspace share its
   * memory budget, as a cgroup's do, so an alloc past what the others leave
   * is killed for memory.
   */
  heldBytes: number;
}

interface FakeState {
  workspaces: Record<string, FakeWorkspace>;
}

const ENVIRONMENT_DIGEST = `sha256:${createHash('sha256').update('headspace fake provider, profile host, v1').digest('hex')}`;

/**
 * An in-memory provider: deterministic, engine-free, and a genuine second
 * implementation of the contract (it passes the same conformance suite as
 * native). Commands are the scripted language in fake-commands.ts.
 */
export function createFakeProvider(options: FakeProviderOptions = {}): Provider {
  const clock = options.clock ?? systemClock;
  const cannot = new Set(options.cannotEnforce ?? []);
  let memory: FakeState = { workspaces: {} };

  const load = (): FakeState => {
    if (!options.persistPath) return memory;
    try {
      memory = JSON.parse(readFileSync(options.persistPath, 'utf8')) as FakeState;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ProviderError(`fake provider state is unreadable: ${(error as Error).message}`, { hint: `the fake provider's state file ${options.persistPath} is damaged: remove it to start the fake afresh (its workspaces are lost)` });
      memory = { workspaces: {} };
    }
    return memory;
  };
  const save = (state: FakeState): void => {
    memory = state;
    if (!options.persistPath) return;
    mkdirSync(dirname(options.persistPath), { recursive: true });
    const tmp = `${options.persistPath}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, options.persistPath);
  };
  /**
   * Read-modify-write against the latest state under a lock file, so two
   * processes' changes both land (without it, concurrent creates in two
   * processes lost one workspace: found by the concurrency suite). A lock
   * whose holder is gone (kill -9 mid-write) is taken over.
   */
  const mutate = <T>(fn: (state: FakeState) => T): T => {
    const release = lock();
    try {
      const state = load();
      const out = fn(state);
      save(state);
      return out;
    } finally {
      release();
    }
  };
  const lock = (): (() => void) => {
    if (!options.persistPath) return () => undefined;
    const file = `${options.persistPath}.lock`;
    mkdirSync(dirname(file), { recursive: true });
    const me = currentOwner();
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
        return () => {
          try {
            unlinkSync(file);
          } catch {
            // Already taken over as stale: nothing to release.
          }
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readOwner(file);
      if (holder !== undefined ? !isOwnerAlive(holder) : isOlderThan(file, 2000)) {
        try {
          unlinkSync(file);
        } catch {
          // Another waiter took it over first.
        }
        continue;
      }
      if (Date.now() > deadline) throw new ProviderError(`the fake provider's state is locked by process ${holder?.pid ?? '?'}`, { hint: 'run headspace doctor' });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  };
  const guard = () => {
    if (options.broken) throw new ProviderError('the fake backend is broken (configured with broken: true)', { hint: 'create the fake provider without broken: true' });
  };
  const need = (state: FakeState, id: string): FakeWorkspace => {
    const ws = state.workspaces[id];
    if (!ws) throw new EngineError('WORKSPACE_NOT_FOUND', `the fake provider has no workspace ${id}`, { hint: 'list workspaces with: headspace ls' });
    return ws;
  };
  const recount = (ws: FakeWorkspace) => {
    ws.storageBytes = Object.values(ws.files).reduce((n, b64) => n + Buffer.from(b64, 'base64').length, 0);
  };

  const provider: Provider = {
    name: 'fake',
    async probe(): Promise<ProbeResult> {
      return {
        provider: 'fake',
        ready: !options.broken,
        checks: [{ name: 'in-memory backend', ok: !options.broken, detail: options.broken ? 'configured broken' : options.persistPath ? `state kept in ${options.persistPath}` : 'state kept in this process' }],
      };
    },
    async capabilities(): Promise<ProviderCapabilities> {
      const all: LimitName[] = ['network', 'filesystem', 'memory', 'cpu', 'pids', 'storage', 'wall_clock', 'output_bytes', 'concurrency'];
      const enforces = Object.fromEntries(all.map((l) => [l, !cannot.has(l)])) as Record<LimitName, boolean>;
      const reasons: ProviderCapabilities['reasons'] = {};
      for (const l of cannot) reasons[l] = `the fake provider was configured not to enforce ${l}`;
      return {
        provider: 'fake',
        enforces,
        reasons,
        networkAccess: false,
        hostPaths: false,
        layers: ['simulated'],
        durable: Boolean(options.persistPath),
        simulated: true,
        jobsAtOnce: MAX_JOBS_AT_ONCE,
      };
    },
    ...(options.capacity === undefined ? {} : { capacity: async () => options.capacity! }),
    async create(spec: WorkspaceSpec): Promise<WorkspaceDescriptor> {
      guard();
      return mutate((state) => {
        if (state.workspaces[spec.workspaceId]) throw new EngineError('WORKSPACE_EXISTS', `the fake provider already has workspace ${spec.workspaceId}`, { hint: 'choose another --workspace-id, or run headspace doctor --repair to reconcile the record' });
        state.workspaces[spec.workspaceId] = {
          profile: spec.profile,
          files: {},
          storageBytes: 0,
          storageBudget: spec.policy.budget.storageBytes,
          jobs: {},
          jobUser: { ...spec.jobUser },
        };
        return { workspaceId: spec.workspaceId, state: 'ready', profile: spec.profile, environmentDigest: ENVIRONMENT_DIGEST, storageBytes: 0 };
      });
    },
    async inspect(workspaceId: string): Promise<WorkspaceDescriptor> {
      guard();
      const ws = load().workspaces[workspaceId];
      if (!ws) return { workspaceId, state: 'missing', profile: 'unknown', environmentDigest: ENVIRONMENT_DIGEST };
      return { workspaceId, state: 'ready', profile: ws.profile, environmentDigest: ENVIRONMENT_DIGEST, storageBytes: ws.storageBytes };
    },
    async run(request: RunRequest): Promise<JobOutcome> {
      guard();
      let shared = mutate((state) => {
        const ws = need(state, request.workspaceId);
        (ws.jobs ??= {})[request.jobId] = { owner: currentOwner(), stopRequested: false, heldBytes: 0 };
        return Object.keys(ws.jobs).length > 1;
      });
      const started = clock.now();
      // The simulated job's own peak, until another job runs beside it: then the workspace's, as a shared cgroup's is.
      const usage: JobOutcome['usage'] & { maxMemoryBytes: number } = { cpuSeconds: 0, maxMemoryBytes: 4 * 1024 * 1024, memoryScope: 'job', peakPids: 1 };
      let exitCode: number | null = 0;
      let signal: string | null = null;
      let oomKilled = false;
      const out = (stream: 'stdout' | 'stderr', text: string) => request.onOutput(stream, Buffer.from(text));
      // A job's relative paths start at its working directory, as they do for a real process (#12 item 9).
      // A job passes real names (a backslash is a byte), as a program passes them to the kernel; files are
      // keyed by the name text form the provider contract speaks, relative to the job's --cwd (itself text form).
      const inCwd = (path: string) => {
        const name = normalizeRawWorkspacePath(path);
        return request.cwd ? normalizeWorkspacePath(`${request.cwd}/${name}`) : name;
      };
      let wasStopped = false;
      const stopped = () => Boolean(load().workspaces[request.workspaceId]?.jobs?.[request.jobId]?.stopRequested);

      try {
        for (const command of splitSequence(request.argv)) {
          exitCode = await runOne(command);
          if (exitCode !== 0 || request.signal.aborted || stopped()) break;
        }
      } finally {
        mutate((state) => {
          const ws = state.workspaces[request.workspaceId];
          const job = ws?.jobs?.[request.jobId];
          if (ws?.jobs !== undefined && job !== undefined) {
            if (Object.keys(ws.jobs).length > 1) shared = true;
            // Read before the entry goes: the stop flag is the job's own, and leaves with it.
            wasStopped = job.stopRequested;
            delete ws.jobs[request.jobId];
          }
        });
      }
      if (shared) usage.memoryScope = 'workspace';
      if (request.signal.aborted || wasStopped) {
        exitCode = null;
        signal = wasStopped && !request.signal.aborted ? 'SIGTERM' : 'SIGKILL';
      }
      return { exitCode, signal, oomKilled, stopped: wasStopped, aborted: request.signal.aborted, durationMs: clock.now() - started, usage };

      async function runOne(command: string[]): Promise<number | null> {
        const [name, ...args] = command as [string, ...string[]];
        switch (name) {
          case 'echo':
            out('stdout', `${args.join(' ')}\n`);
            return 0;
          case 'stderr':
            out('stderr', `${args.join(' ')}\n`);
            return 0;
          case 'true':
            return 0;
          case 'false':
            return 1;
          case 'fail':
          case 'exit': {
            const code = Number(args[0] ?? 1);
            if (name === 'fail') out('stderr', `error: failing with status ${code}\n`);
            return Number.isInteger(code) && code >= 0 && code <= 255 ? code : 2;
          }
          case 'sleep': {
            // A stop ends a sleep as it ends `block`: before, `stop --apply` on a sleeping
            // job waited out the provider's 5 s and read infrastructure_failure (#12 item 22).
            const wake = new AbortController();
            const onAbort = () => wake.abort();
            request.signal.addEventListener('abort', onAbort, { once: true });
            const watch = setInterval(() => stopped() && wake.abort(), 20);
            try {
              if (request.signal.aborted) wake.abort();
              await clock.sleep(Number(args[0] ?? 0) * 1000, wake.signal);
            } finally {
              clearInterval(watch);
              request.signal.removeEventListener('abort', onAbort);
            }
            return 0;
          }
          case 'block':
            while (!request.signal.aborted && !stopped()) await new Promise((r) => setTimeout(r, 20));
            // A stop arrives as TERM first: block answers like a job's TERM handler, and what it prints is kept.
            if (stopped()) out('stdout', 'block: TERM received from stop, ending\n');
            return 0;
          case 'alloc': {
            const bytes = Number(args[0] ?? 0);
            const budget = request.policy.budget.memoryBytes;
            // What the workspace's other running jobs hold counts against the same budget (a crashed job's process holds nothing).
            const others = mutate((state) => {
              const jobs = need(state, request.workspaceId).jobs ?? {};
              const held = Object.entries(jobs).filter(([id, job]) => id !== request.jobId && isOwnerAlive(job.owner)).reduce((n, [, job]) => n + job.heldBytes, 0);
              const mine = jobs[request.jobId];
              if (mine !== undefined && held + bytes <= budget) mine.heldBytes = Math.max(mine.heldBytes, bytes);
              if (Object.keys(jobs).length > 1) shared = true;
              return held;
            });
            if (shared) usage.memoryScope = 'workspace';
            usage.maxMemoryBytes = Math.max(usage.maxMemoryBytes, Math.min(others + bytes, budget));
            if (others + bytes > budget && !cannot.has('memory')) {
              oomKilled = true;
              signal = 'SIGKILL';
              return null;
            }
            return 0;
          }
          case 'flood': {
            const total = Number(args[0] ?? 0);
            const line = `${'flood '.repeat(15)}\n`;
            const chunk = line.repeat(Math.ceil(65536 / line.length));
            let sent = 0;
            while (sent < total && !request.signal.aborted) {
              const piece = chunk.slice(0, Math.min(chunk.length, total - sent));
              out('stdout', piece);
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
                out('stdout', batch);
                batch = '';
              }
            }
            out('stdout', batch);
            return 0;
          }
          case 'write': {
            const path = inCwd(args[0] ?? '');
            const data = Buffer.from(args.slice(1).join(' '));
            mutate((state) => {
              const ws = need(state, request.workspaceId);
              ws.files[path] = data.toString('base64');
              recount(ws);
            });
            return 0;
          }
          case 'cat': {
            const ws = need(load(), request.workspaceId);
            const file = ws.files[inCwd(args[0] ?? '')];
            if (file === undefined) {
              out('stderr', `cat: ${args[0] ?? ''}: No such file or directory\n`);
              return 1;
            }
            request.onOutput('stdout', Buffer.from(file, 'base64'));
            return 0;
          }
          case 'env':
            out('stdout', `${request.env[args[0] ?? ''] ?? ''}\n`);
            return 0;
          case 'ls':
            out('stdout', Object.keys(need(load(), request.workspaceId).files).sort().map((p) => `${nameBytes(p).toString('utf8')}\n`).join(''));
            return 0;
          default: {
            const ws = need(load(), request.workspaceId);
            let asPath: string | null = null;
            try {
              asPath = normalizeRawWorkspacePath(name);
            } catch {
              asPath = null;
            }
            if (asPath !== null && ws.files[asPath] !== undefined) {
              out('stderr', `${name}: Permission denied\n`);
              return 126;
            }
            out('stderr', `${name}: command not found\n`);
            return 127;
          }
        }
      }
    },
    async read(workspaceId: string, path: string, chunkBytes = 1024 * 1024): Promise<ReadStream> {
      guard();
      const key = normalizeWorkspacePath(path);
      const ws = need(load(), workspaceId);
      const file = ws.files[key];
      if (file === undefined) {
        const isDir = Object.keys(ws.files).some((p) => p.startsWith(`${key}/`));
        if (isDir) throw new EngineError('NOT_A_REGULAR_FILE', `${key} is a directory, not a regular file`, { hint: `name a file inside it; list them with: headspace ls-files ${workspaceId} ${key}` });
        throw new EngineError('FILE_NOT_FOUND', `no file ${key} in workspace ${workspaceId}`, { hint: `list its files with: headspace ls-files ${workspaceId}` });
      }
      const bytes = Buffer.from(file, 'base64');
      let closed = false;
      return {
        size: bytes.length,
        chunks: (async function* () {
          for (let at = 0; at < bytes.length && !closed; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
        })(),
        async close() {
          closed = true;
        },
      };
    },
    async write(workspaceId: string, path: string, data: Buffer, writeOptions: WriteOptions): Promise<void> {
      guard();
      const key = normalizeWorkspacePath(path);
      const digest = createHash('sha256').update(data).digest('hex');
      if (digest !== writeOptions.expectedSha256.toLowerCase()) {
        throw new EngineError('DIGEST_MISMATCH', `the bytes for ${key} have sha256 ${digest}, not the expected ${writeOptions.expectedSha256}; nothing was written`, { hint: 'the source changed while it was copied; copy it again' });
      }
      mutate((state) => {
        const ws = need(state, workspaceId);
        if (ws.files[key] !== undefined && !writeOptions.overwrite) {
          throw new EngineError('DESTINATION_EXISTS', `${key} already exists in workspace ${workspaceId}`, { hint: 'pass overwrite: true (--overwrite on the CLI) to replace it' });
        }
        const after = ws.storageBytes - (ws.files[key] ? Buffer.from(ws.files[key], 'base64').length : 0) + data.length;
        if (!cannot.has('storage') && after > ws.storageBudget) {
          throw new EngineError('POLICY_DENIED', `writing ${key} would take the workspace to ${after} bytes, past its storage_bytes budget of ${ws.storageBudget}`, { hint: 'create the workspace with a larger --storage-bytes' });
        }
        ws.files[key] = data.toString('base64');
        recount(ws);
      });
    },
    async removePath(workspaceId: string, path: string): Promise<void> {
      guard();
      const key = normalizeWorkspacePath(path);
      mutate((state) => {
        const ws = need(state, workspaceId);
        for (const p of Object.keys(ws.files)) if (p === key || p.startsWith(`${key}/`)) delete ws.files[p];
        recount(ws);
      });
    },
    async list(workspaceId: string, path: string, limit: number): Promise<{ entries: FileEntry[]; truncated: boolean }> {
      guard();
      const base = normalizeWorkspacePath(path, { allowRoot: true });
      const ws = need(load(), workspaceId);
      const prefix = base === '' ? '' : `${base}/`;
      if (base !== '' && ws.files[base] !== undefined) throw new EngineError('NOT_A_REGULAR_FILE', `${base} is a file, not a directory`, { hint: `list its directory instead: headspace ls-files ${workspaceId}` });
      // Recursive, like native: every file under the path and every directory implied by one.
      const seen = new Map<string, FileEntry>();
      for (const [p, b64] of Object.entries(ws.files)) {
        if (!p.startsWith(prefix)) continue;
        const parts = p.slice(prefix.length).split('/');
        for (let i = 1; i < parts.length; i++) {
          const dir = prefix + parts.slice(0, i).join('/');
          if (!seen.has(dir)) seen.set(dir, { path: dir, type: 'directory', size: 0 });
        }
        seen.set(p, { path: p, type: 'file', size: Buffer.from(b64, 'base64').length });
      }
      if (base !== '' && seen.size === 0) throw new EngineError('FILE_NOT_FOUND', `no directory ${base} in workspace ${workspaceId}`, { hint: `list the whole workspace: headspace ls-files ${workspaceId}` });
      const entries = [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { entries: entries.slice(0, limit), truncated: entries.length > limit };
    },
    async stop(workspaceId: string, stopOptions: StopOptions = {}): Promise<StopReport> {
      guard();
      const targets = mutate((state) => {
        const jobs = (need(state, workspaceId).jobs ??= {});
        for (const [id, job] of Object.entries(jobs)) {
          // Its process died (kill -9): nothing of the job runs any more.
          if (!isOwnerAlive(job.owner)) delete jobs[id];
        }
        // One job when asked for one (the others run on), else every job of the workspace.
        const ids = Object.keys(jobs).filter((id) => stopOptions.jobId === undefined || id === stopOptions.jobId);
        for (const id of ids) jobs[id]!.stopRequested = true;
        return ids;
      });
      if (targets.length === 0) return { stopped: false, empty: true };
      const remaining = () => {
        const jobs = load().workspaces[workspaceId]?.jobs ?? {};
        return targets.some((id) => jobs[id] !== undefined);
      };
      // The request is the fake's TERM: wait the grace (and a moment more) for the jobs to notice and let go.
      const deadline = Date.now() + (stopOptions.graceMs ?? 5000) + 1000;
      while (Date.now() < deadline) {
        if (!remaining()) return { stopped: true, empty: true };
        await new Promise((r) => setTimeout(r, 20));
      }
      return { stopped: true, empty: !remaining() };
    },
    async remove(workspaceId: string): Promise<RemovalDisposition> {
      guard();
      return mutate((state) => {
        if (!state.workspaces[workspaceId]) return { removed: [], retained: [], unverified: ['runtime', 'storage'] };
        delete state.workspaces[workspaceId];
        return { removed: ['runtime', 'storage'], retained: [], unverified: [] };
      });
    },
    async listWorkspaces(): Promise<string[]> {
      guard();
      return Object.keys(load().workspaces).sort();
    },
    // Temporary state files (`state.json.<pid>.tmp`) and a lock of processes that are gone.
    async leftovers(): Promise<Leftover[]> {
      if (!options.persistPath) return [];
      const dir = dirname(options.persistPath);
      const base = basename(options.persistPath);
      const found: Leftover[] = [];
      for (const name of safeReaddir(dir).sort()) {
        const tmp = name.startsWith(`${base}.`) && /^\d+$/.test(name.slice(base.length + 1, -4)) && name.endsWith('.tmp') ? Number(name.slice(base.length + 1, -4)) : null;
        if (tmp !== null && !isOwnerAlive({ pid: tmp, started: null })) {
          found.push({ kind: 'file', workspaceId: null, target: join(dir, name), detail: `temporary state file ${name} of the fake provider, left by process ${tmp}, which is gone` });
        }
        if (name === `${base}.lock`) {
          const holder = readOwner(join(dir, name));
          if (holder !== undefined ? !isOwnerAlive(holder) : isOlderThan(join(dir, name), 2000)) found.push({ kind: 'file', workspaceId: null, target: join(dir, name), detail: `lock file ${name} of the fake provider held by ${holder ? `process ${holder.pid}, which is gone` : 'no one (empty and stale)'}` });
        }
      }
      return found;
    },
    async removeLeftover(leftover: Leftover): Promise<void> {
      if (!options.persistPath || dirname(leftover.target) !== dirname(options.persistPath)) throw new ProviderError(`not a fake provider leftover: ${leftover.target}`, { hint: 'this is a headspace bug: only leftovers the fake listed can be removed' });
      if (!(await provider.leftovers!()).some((l) => l.target === leftover.target)) return;
      try {
        unlinkSync(leftover.target);
      } catch {
        // Already gone.
      }
    },
  };
  return provider;
}

function readOwner(file: string): Owner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Owner>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, started: typeof parsed.started === 'string' ? parsed.started : null } : undefined;
  } catch {
    return undefined;
  }
}

/** An empty lock (its writer died between create and write) older than this is stale. */
function isOlderThan(file: string, ms: number): boolean {
  try {
    return statSync(file).mtimeMs < Date.now() - ms;
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
