import { join } from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { defaultHome, unknownProvider, type EngineContext, type ProviderFactory } from './context.js';
import { createEventBus, type EventBus } from './events.js';
import { forTheCaller } from './infrastructure-errors.js';
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

  const ctx: Omit<EngineContext, 'traceId'> = {
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
  };

  /**
   * Every verb goes through here: it gets a context of its own with a fresh
   * trace id (#12 item 7), and an infrastructure failure reaches the caller
   * without host paths or loop devices and with a remediation (#12 item 4),
   * whichever verb and provider it came from.
   */
  const ids = options.ids ?? randomIds;
  const call = <T>(verb: (c: EngineContext) => Promise<T>): Promise<T> =>
    Promise.resolve({ ...ctx, traceId: ids('trace') })
      .then(verb)
      .catch((error: unknown) => {
        throw forTheCaller(error);
      });

  // Each verb first refuses keys it does not take (a misspelt option was silently ignored: #12 item 15).
  return {
    home,
    events,
    create: (input = {}) => call(async (c) => (refuseUnknownKeys('create', input), (await import('./verbs/create.js')).createWorkspace(c, input))),
    run: (input) => call(async (c) => (refuseUnknownKeys('run', input), (await import('./verbs/run.js')).runJob(c, input))),
    stop: (input) => call(async (c) => (refuseUnknownKeys('stop', input), (await import('./verbs/stop.js')).stopJob(c, input))),
    inspect: (input) => call(async (c) => (refuseUnknownKeys('inspect', input), (await import('./verbs/inspect.js')).inspectHandle(c, input))),
    logsDump: (input) => call(async (c) => (refuseUnknownKeys('inspect', input), (await import('./verbs/inspect.js')).dumpLogs(c, input))),
    logs: (input) => call(async (c) => (refuseUnknownKeys('logs', input), (await import('./verbs/logs.js')).readLogs(c, input))),
    ls: (input = {}) => call(async (c) => (refuseUnknownKeys('ls', input), (await import('./verbs/ls.js')).listWorkspaces(c, input))),
    destroy: (input) => call(async (c) => (refuseUnknownKeys('destroy', input), (await import('./verbs/destroy.js')).destroyWorkspace(c, input))),
    gc: () => call(async (c) => (await import('./verbs/gc.js')).collectGarbage(c)),
    doctor: (input = {}) => call(async (c) => (refuseUnknownKeys('doctor', input), (await import('./verbs/doctor.js')).diagnose(c, input))),
    probe: (input) => call(async (c) => (refuseUnknownKeys('probe', input), (await import('./verbs/probe.js')).probeContainment(c, input))),
    put: (input) => call(async (c) => (refuseUnknownKeys('put', input), (await import('./verbs/put.js')).putFiles(c, input))),
    declare: (input) => call(async (c) => (refuseUnknownKeys('declare', input), (await import('./verbs/declare.js')).declareArtifact(c, input))),
    export: (input) => call(async (c) => (refuseUnknownKeys('export', input), (await import('./verbs/export.js')).exportArtifact(c, input))),
    listFiles: (input) => call(async (c) => (refuseUnknownKeys('listFiles', input), (await import('./verbs/ls-files.js')).listFiles(c, input))),
    provider: (name) => ctx.provider(name),
    close() {
      store?.close();
      store = null;
    },
  };
}
