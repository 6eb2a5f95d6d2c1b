import { join } from 'node:path';
import type * as zod from 'zod';
import { systemClock, type Clock } from './clock.js';
import { defaultHome, unknownProvider, type EngineContext, type ProviderFactory } from './context.js';
import { createEventBus, type EventBus } from './events.js';
import { forTheCaller } from './infrastructure-errors.js';
import { refuseUnknownKeys } from './input-keys.js';
import { randomIds, type IdGenerator } from './ids.js';
import type { Provider } from './provider.js';
import type { ResultPackage } from './result/result-package.js';
import { refuseUnsafeHome } from './store/home-safety.js';
import { SqliteStore } from './store/sqlite-store.js';
import type { VerbDefinition } from './verb-table/define-verb.js';
import { manifestEntry } from './verb-table/verb-manifest.js';
import { VERB_TABLE, type AnyVerb } from './verb-table/verb-table.js';
import type { InspectInput, LogsDump } from './verbs/inspect.js';
import type { FileBytes, ReadFileInput } from './verbs/read-file.js';
import type { ClaimedEvent, SubscriptionIteratorInput } from './events/subscription-iterator.js';
import type { BatchSummary } from './reads/batch-list.js';
import type { StoredProbeReport } from './reads/probe-reports.js';
import type { WatchSamples, WatchSamplesInput } from './reads/watch-samples.js';
import type { WorkspaceFacts, WorkspaceFactsInput } from './reads/workspace-facts.js';

export interface EngineOptions {
  /** State directory; default $HEADSPACE_HOME or ~/.headspace. */
  home?: string;
  providers: Record<string, ProviderFactory>;
  defaultProvider: string;
  version: string;
  clock?: Clock;
  ids?: IdGenerator;
  events?: EventBus;
  /** Providers a detached run's supervisor can rebuild from the home (the registered ones the caller did not replace). */
  detachableProviders?: readonly string[];
  /** Which face this engine serves, recorded on every journalled intent ('ui': the dashboard, #21); absent for the others. */
  actor?: string;
}

/** A verb's input as the library takes it: the schema's fields, plus the runtime-only keys (a signal, a callback). */
export type VerbInputOf<V> =
  V extends VerbDefinition<string, string, infer Schema extends zod.ZodObject, infer Runtime> ? zod.input<Schema> & Partial<Runtime> : never;

/** One method per verb of the table: a verb whose fields are all optional may be called without input. */
export type VerbMethods = {
  [V in AnyVerb as V['method']]: object extends VerbInputOf<V>
    ? (input?: VerbInputOf<V>) => Promise<ResultPackage>
    : (input: VerbInputOf<V>) => Promise<ResultPackage>;
};

/**
 * The public engine: the verbs of the table, and what a face needs besides
 * that is not a result package — a job's output as a stream and a file's
 * bytes. A face never reaches the store, a log file's path or a provider
 * (#11): everything goes through here.
 */
export interface Engine extends VerbMethods {
  readonly home: string;
  readonly events: EventBus;
  /** Every job's kept output for a handle (a job, or a workspace's jobs), unbounded, as streams. */
  logStream(input: InspectInput): Promise<LogsDump>;
  /** A workspace file's bytes, whole; refused past `maxBytes`. */
  readFile(input: ReadFileInput): Promise<FileBytes>;
  /** A subscription's events, claimed in batches, one at a time; acknowledged when you move on (or ack()), put back if you throw or break (#15). */
  subscription(input: SubscriptionIteratorInput): AsyncGenerator<ClaimedEvent, void, undefined>;
  /** The dashboard's reads (#21), plain data: a page of workspaces' policy labels and storage, */
  workspaceFacts(input: WorkspaceFactsInput): Promise<WorkspaceFacts[]>;
  /** a job's or a workspace's recorded watch samples, */
  watchSamples(input: WatchSamplesInput): Promise<WatchSamples>;
  /** the last `probe --all` report (with when and which build), */
  lastProbeReport(input?: { provider?: string }): Promise<StoredProbeReport | null>;
  /** and the batches, newest first (one in full: batchStatus). */
  listBatches(input?: { limit?: number }): Promise<{ total: number; batches: BatchSummary[] }>;
  /** Refuses an unknown provider name (UNKNOWN_PROVIDER) before any work, building it once. */
  requireProvider(name: string): Promise<void>;
  close(): void;
}

/** The engine with its providers reachable: for tests, benchmarks and the composition root, not for faces. */
export interface EngineWithProviders extends Engine {
  /** The provider instance for a name (built once per engine). */
  provider(name: string): Promise<Provider>;
  /** A detached run's supervisor: runs the job `jobId` the caller handed over (`handover`, what came over its socket or pipe). */
  superviseJob(jobId: string, handover: string): Promise<void>;
}

/**
 * The engine is a value: everything it needs is passed in, nothing lives at
 * module scope, so two engines (two homes, two clocks) never share state.
 * The store opens on first use, and each verb's module loads when it is
 * first called, so a CLI process pays only for the verb it runs.
 */
export function createEngine(options: EngineOptions): EngineWithProviders {
  const home = options.home ?? defaultHome();
  const clock = options.clock ?? systemClock;
  const events = options.events ?? createEventBus();
  let store: SqliteStore | null = null;
  const built = new Map<string, Promise<Provider>>();

  const ctx: Omit<EngineContext, 'traceId'> = {
    home,
    version: options.version,
    clock,
    ids: options.ids ?? randomIds,
    events,
    defaultProvider: options.defaultProvider,
    providerNames: () => Object.keys(options.providers),
    store() {
      store ??= SqliteStore.open(home, options.actor === undefined ? {} : { actor: options.actor });
      return store;
    },
    provider(name: string) {
      const factory = Object.hasOwn(options.providers, name) ? options.providers[name] : undefined;
      if (!factory) return Promise.reject(unknownProvider(name, Object.keys(options.providers)));
      let provider = built.get(name);
      if (!provider) {
        provider = Promise.resolve().then(() => factory({ home, clock }));
        built.set(name, provider);
      }
      return provider;
    },
    logPath: (jobId) => join(home, 'jobs', `${jobId}.log`),
    detachable: (name) => (options.detachableProviders ?? []).includes(name),
  };

  /**
   * Every call goes through here: it gets a context of its own with a fresh
   * trace id (#12 item 7), and an infrastructure failure reaches the caller
   * without host paths or loop devices and with a remediation (#12 item 4),
   * whichever verb and provider it came from.
   */
  const ids = options.ids ?? randomIds;
  const call = <T>(work: (c: EngineContext) => Promise<T>): Promise<T> =>
    Promise.resolve()
      .then(() => {
        // A long-lived engine (serve, mcp, ui, the shared supervisor) opened its store once: the home is judged again
        // on every call, or one made unsafe after the start (a chmod 777 above it) was still served (red team, session 11);
        // and its store must still be the one at the home, or every call read and wrote a file moved or deleted away.
        if (store !== null) {
          refuseUnsafeHome(home);
          store.refuseIfMoved({ now: true });
        }
        return { ...ctx, traceId: ids('trace') };
      })
      .then(work)
      .catch((error: unknown) => {
        throw forTheCaller(error);
      });

  /**
   * A verb of the table: its input's keys are checked against its schema
   * first (a misspelt option was silently ignored: #12 item 15), then its
   * handler's module loads.
   */
  const verb = (definition: AnyVerb) => {
    // The handler's module is looked up once per engine: a dynamic import per call went through the module loader every time (#20).
    let handler: Promise<(c: EngineContext, input: unknown) => Promise<ResultPackage>> | null = null;
    return (input: unknown = {}) =>
      call(async (c) => {
        const entry = manifestEntry(definition.name);
        if (entry) refuseUnknownKeys(entry, input);
        handler ??= definition.handler().catch((error: unknown) => {
          handler = null;
          throw error;
        }) as Promise<(c: EngineContext, input: unknown) => Promise<ResultPackage>>;
        return (await handler)(c, input);
      });
  };

  const methods = Object.fromEntries(VERB_TABLE.map((definition) => [definition.method, verb(definition)])) as unknown as VerbMethods;

  return {
    ...methods,
    home,
    events,
    logStream: (input) => call(async (c) => (await import('./verbs/inspect.js')).dumpLogs(c, input)),
    readFile: (input) => call(async (c) => (await import('./verbs/read-file.js')).readWorkspaceFile(c, input)),
    // Loaded on first use, like every verb; yield* hands the consumer's return() and throw() on, so its finally runs.
    subscription: async function* (input) {
      const { iterateSubscription } = await import('./events/subscription-iterator.js');
      yield* iterateSubscription({ ...ctx, traceId: ids('trace') }, input);
    },
    workspaceFacts: (input) => call(async (c) => (await import('./reads/workspace-facts.js')).workspaceFacts(c, input)),
    watchSamples: (input) => call(async (c) => (await import('./reads/watch-samples.js')).readWatchSamples(c, input)),
    lastProbeReport: (input = {}) => call(async (c) => (await import('./reads/probe-reports.js')).lastProbeReport(c, input)),
    listBatches: (input = {}) => call(async (c) => (await import('./reads/batch-list.js')).listBatches(c, input)),
    requireProvider: async (name) => void (await ctx.provider(name)),
    provider: (name) => ctx.provider(name),
    superviseJob: (jobId, handover) => call(async (c) => (await import('./run/supervise-job.js')).superviseJob(c, jobId, handover)),
    close() {
      store?.close();
      store = null;
    },
  };
}
