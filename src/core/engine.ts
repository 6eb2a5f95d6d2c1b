import { join } from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { defaultHome, shellQuote, unknownProvider, type EngineContext, type ProviderFactory } from './context.js';
import { createEventBus, type EventBus } from './events.js';
import { refuseUnknownKeys } from './input-keys.js';
import { randomIds, type IdGenerator } from './ids.js';
import type { Provider } from './provider.js';
import type { ResultPackage } from './result/result-package.js';
import { SqliteStore } from './store/sqlite-store.js';
import type { CreateInput } from './verbs/create.js';
import type { DeclareInput } from './verbs/declare.js';
import type { DestroyInput } from './verbs/destroy.js';
import type { DoctorInput } from './verbs/doctor.js';
import type { ExportInput } from './verbs/export.js';
import type { InspectInput, LogsDump } from './verbs/inspect.js';
import type { LogsInput } from './verbs/logs.js';
import type { LsFilesInput } from './verbs/ls-files.js';
import type { LsInput } from './verbs/ls.js';
import type { ProbeInput } from './verbs/probe.js';
import type { PutInput } from './verbs/put.js';
import type { RunInput } from './verbs/run.js';
import type { StopInput } from './verbs/stop.js';

export interface EngineOptions {
  /** State directory; default $HEADSPACE_HOME or ~/.headspace. */
  home?: string;
  providers: Record<string, ProviderFactory>;
  defaultProvider: string;
  version: string;
  clock?: Clock;
  ids?: IdGenerator;
  events?: EventBus;
}

export interface Engine {
  readonly home: string;
  readonly events: EventBus;
  create(input?: CreateInput): Promise<ResultPackage>;
  run(input: RunInput): Promise<ResultPackage>;
  stop(input: StopInput): Promise<ResultPackage>;
  inspect(input: InspectInput): Promise<ResultPackage>;
  logsDump(input: InspectInput): Promise<LogsDump>;
  logs(input: LogsInput): Promise<ResultPackage>;
  ls(input?: LsInput): Promise<ResultPackage>;
  destroy(input: DestroyInput): Promise<ResultPackage>;
  gc(): Promise<ResultPackage>;
  doctor(input?: DoctorInput): Promise<ResultPackage>;
  /** Real escape attempts in a dedicated workspace; success only when every scenario is contained. */
  probe(input: ProbeInput): Promise<ResultPackage>;
  put(input: PutInput): Promise<ResultPackage>;
  declare(input: DeclareInput): Promise<ResultPackage>;
  export(input: ExportInput): Promise<ResultPackage>;
  listFiles(input: LsFilesInput): Promise<ResultPackage>;
  /** The provider instance for a name (built once per engine). */
  provider(name: string): Promise<Provider>;
  close(): void;
}

/**
 * The engine is a value: everything it needs is passed in, nothing lives at
 * module scope, so two engines (two homes, two clocks) never share state.
 * The store opens on first use, and each verb's module loads when it is
 * first called, so a CLI process pays only for the verb it runs.
 */
export function createEngine(options: EngineOptions): Engine {
  const home = options.home ?? defaultHome();
  const clock = options.clock ?? systemClock;
  const events = options.events ?? createEventBus();
  let store: SqliteStore | null = null;
  const built = new Map<string, Promise<Provider>>();
  const isDefaultHome = home === defaultHome();

  const ctx: EngineContext = {
    home,
    version: options.version,
    clock,
    ids: options.ids ?? randomIds,
    events,
    defaultProvider: options.defaultProvider,
    providerNames: () => Object.keys(options.providers),
    store() {
      store ??= SqliteStore.open(home);
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
    retrievalCommand: (handle) => `${isDefaultHome ? '' : `HEADSPACE_HOME=${shellQuote(home)} `}headspace inspect ${handle} --logs`,
  };

  // Each verb first refuses keys it does not take (a misspelt option was silently ignored: #12 item 15).
  return {
    home,
    events,
    create: async (input = {}) => (refuseUnknownKeys('create', input), (await import('./verbs/create.js')).createWorkspace(ctx, input)),
    run: async (input) => (refuseUnknownKeys('run', input), (await import('./verbs/run.js')).runJob(ctx, input)),
    stop: async (input) => (refuseUnknownKeys('stop', input), (await import('./verbs/stop.js')).stopJob(ctx, input)),
    inspect: async (input) => (refuseUnknownKeys('inspect', input), (await import('./verbs/inspect.js')).inspectHandle(ctx, input)),
    logsDump: async (input) => (refuseUnknownKeys('inspect', input), (await import('./verbs/inspect.js')).dumpLogs(ctx, input)),
    logs: async (input) => (refuseUnknownKeys('logs', input), (await import('./verbs/logs.js')).readLogs(ctx, input)),
    ls: async (input = {}) => (refuseUnknownKeys('ls', input), (await import('./verbs/ls.js')).listWorkspaces(ctx, input)),
    destroy: async (input) => (refuseUnknownKeys('destroy', input), (await import('./verbs/destroy.js')).destroyWorkspace(ctx, input)),
    gc: async () => (await import('./verbs/gc.js')).collectGarbage(ctx),
    doctor: async (input = {}) => (refuseUnknownKeys('doctor', input), (await import('./verbs/doctor.js')).diagnose(ctx, input)),
    probe: async (input) => (refuseUnknownKeys('probe', input), (await import('./verbs/probe.js')).probeContainment(ctx, input)),
    put: async (input) => (refuseUnknownKeys('put', input), (await import('./verbs/put.js')).putFiles(ctx, input)),
    declare: async (input) => (refuseUnknownKeys('declare', input), (await import('./verbs/declare.js')).declareArtifact(ctx, input)),
    export: async (input) => (refuseUnknownKeys('export', input), (await import('./verbs/export.js')).exportArtifact(ctx, input)),
    listFiles: async (input) => (refuseUnknownKeys('listFiles', input), (await import('./verbs/ls-files.js')).listFiles(ctx, input)),
    provider: (name) => ctx.provider(name),
    close() {
      store?.close();
      store = null;
    },
  };
}
