/**
 * An in-memory provider: deterministic, engine-free, and a genuine second
 * implementation of the contract (it passes the same conformance suite as
 * native). This file composes its parts: the state and its lock
 * (fake-state.ts), the scripted command interpreter (fake-interpreter.ts,
 * driven by run-fake-job.ts; the language is in fake-commands.ts), files
 * (fake-files.ts), stop (stop-fake-jobs.ts) and doctor's leftovers
 * (fake-leftovers.ts).
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { EngineError, ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { MAX_JOBS_AT_ONCE } from '../../core/policy/budget-fields.js';
import { LIMIT_NAMES, type LimitName } from '../../core/policy/policy.js';
import type { HostCapacity, Provider, ProviderCapabilities, StopOptions } from '../../core/provider.js';
import { listFakeFiles, readFakeFile, removeFakePath, writeFakeFile } from './fake-files.js';
import { FAKE_COMMANDS } from './fake-commands.js';
import { fakeLeftovers, removeFakeLeftover } from './fake-leftovers.js';
import { fakeSnapshots } from './fake-snapshots.js';
import { fakeStore } from './fake-state.js';
import { runFakeJob } from './run-fake-job.js';
import { stopFakeJobs } from './stop-fake-jobs.js';

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
  /** False to offer no snapshots (a provider without the feature, to exercise the exit-3 refusal); default true. */
  snapshots?: boolean;
  /** A host size to declare (Provider.capacity), to exercise the capacity rules at create; default none. */
  capacity?: HostCapacity;
}

const ENVIRONMENT_DIGEST = `sha256:${createHash('sha256').update('headspace fake provider, profile host, v1').digest('hex')}`;

export function createFakeProvider(options: FakeProviderOptions = {}): Provider {
  const clock = options.clock ?? systemClock;
  const cannot: ReadonlySet<LimitName> = new Set(options.cannotEnforce ?? []);
  const store = fakeStore(options.persistPath);
  const guard = () => {
    if (options.broken)
      throw new ProviderError('the fake backend is broken (configured with broken: true)', { hint: 'create the fake provider without broken: true' });
  };
  const withSnapshots = options.snapshots !== false;
  const snapshots = fakeSnapshots(store, ENVIRONMENT_DIGEST);

  return {
    name: 'fake',
    ...(withSnapshots
      ? {
          snapshots: Object.fromEntries(
            Object.entries(snapshots).map(([name, op]) => [
              name,
              (...args: unknown[]) => {
                guard();
                return (op as (...a: unknown[]) => unknown)(...args);
              },
            ]),
          ) as unknown as typeof snapshots,
        }
      : {}),
    async probe() {
      return {
        provider: 'fake',
        ready: !options.broken,
        checks: [
          {
            name: 'in-memory backend',
            ok: !options.broken,
            detail: options.broken ? 'configured broken' : options.persistPath ? `state kept in ${options.persistPath}` : 'state kept in this process',
          },
        ],
      };
    },
    // Declared only: core/policy/label-limit.ts labels what the fake applies simulated, never enforced.
    async capabilities(): Promise<ProviderCapabilities> {
      const enforces = Object.fromEntries(LIMIT_NAMES.map((l) => [l, !cannot.has(l)])) as Record<LimitName, boolean>;
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
        // Simulated: snapshots in memory (#14), and the engine's allow-list decisions taken for the interpreter's `fetch` (#18).
        features: withSnapshots ? ['snapshots', 'network-allowlist'] : ['network-allowlist'],
      };
    },
    ...(options.capacity === undefined ? {} : { capacity: async () => options.capacity! }),
    async create(spec) {
      guard();
      return store.mutate((state) => {
        if (state.workspaces[spec.workspaceId])
          throw new EngineError('WORKSPACE_EXISTS', `the fake provider already has workspace ${spec.workspaceId}`, {
            hint: 'choose another workspaceId, or let doctor plan the repair that reconciles the record',
            action: nextAction('doctor', { provider: 'fake', repair: true }),
          });
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
    async inspect(workspaceId) {
      guard();
      const ws = store.load().workspaces[workspaceId];
      if (!ws) return { workspaceId, state: 'missing', profile: 'unknown', environmentDigest: ENVIRONMENT_DIGEST };
      return { workspaceId, state: 'ready', profile: ws.profile, environmentDigest: ENVIRONMENT_DIGEST, storageBytes: ws.storageBytes };
    },
    async liveUsage(workspaceId) {
      guard();
      const jobs = Object.values(store.load().workspaces[workspaceId]?.jobs ?? {});
      // The simulation's figures: what its allocs hold, one process per running job; no cpu is simulated.
      return { memoryBytes: jobs.reduce((n, j) => n + j.heldBytes, 0), pids: jobs.length };
    },
    async findTools(_profile, names) {
      guard();
      // The fake's PATH holds its scripted commands, nothing else.
      return Object.fromEntries(names.map((n) => [n, (FAKE_COMMANDS as readonly string[]).includes(n) ? `/fake/bin/${n}` : null]));
    },
    async run(request) {
      guard();
      return runFakeJob(store, clock, cannot, request);
    },
    async read(workspaceId, path, chunkBytes) {
      guard();
      return readFakeFile(store, workspaceId, path, chunkBytes);
    },
    async write(workspaceId, path, data, writeOptions) {
      guard();
      writeFakeFile(store, cannot, workspaceId, path, data, writeOptions);
    },
    async removePath(workspaceId, path) {
      guard();
      removeFakePath(store, workspaceId, path);
    },
    async list(workspaceId, path, limit) {
      guard();
      return listFakeFiles(store, workspaceId, path, limit);
    },
    async stop(workspaceId: string, stopOptions: StopOptions = {}) {
      guard();
      return stopFakeJobs(store, workspaceId, stopOptions);
    },
    async remove(workspaceId) {
      guard();
      return store.mutate((state) => {
        if (!state.workspaces[workspaceId]) return { removed: [], retained: [], unverified: ['runtime', 'storage'] };
        delete state.workspaces[workspaceId];
        return { removed: ['runtime', 'storage'], retained: [], unverified: [] };
      });
    },
    async listWorkspaces() {
      guard();
      return Object.keys(store.load().workspaces).sort();
    },
    leftovers: async () => fakeLeftovers(options.persistPath),
    removeLeftover: async (leftover) => removeFakeLeftover(options.persistPath, leftover),
  };
}
