import { join } from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { defaultHome, shellQuote, unknownProvider, type EngineContext, type ProviderFactory } from './context.js';
import { createEventBus, type EventBus } from './events.js';
import { randomIds, type IdGenerator } from './ids.js';
import type { Provider } from './provider.js';
import type { ResultPackage } from './result/result-package.js';
import { SqliteStore } from './store/sqlite-store.js';
import { createWorkspace, type CreateInput } from './verbs/create.js';
import { destroyWorkspace, type DestroyInput } from './verbs/destroy.js';
import { diagnose, type DoctorInput } from './verbs/doctor.js';
import { probeContainment, type ProbeInput } from './verbs/probe.js';
import { collectGarbage } from './verbs/gc.js';
import { dumpLogs, inspectHandle, type InspectInput, type LogsDump } from './verbs/inspect.js';
import { readLogs, type LogsInput } from './verbs/logs.js';
import { listWorkspaces, type LsInput } from './verbs/ls.js';
import { runJob, type RunInput } from './verbs/run.js';
import { stopJob, type StopInput } from './verbs/stop.js';
import { putFiles, type PutInput } from './verbs/put.js';
import { declareArtifact, type DeclareInput } from './verbs/declare.js';
import { exportArtifact, type ExportInput } from './verbs/export.js';
import { listFiles, type LsFilesInput } from './verbs/ls-files.js';

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
 * The store opens on first use, so verbs that need none (version) pay nothing.
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

  return {
    home,
    events,
    create: (input = {}) => createWorkspace(ctx, input),
    run: (input) => runJob(ctx, input),
    stop: (input) => stopJob(ctx, input),
    inspect: (input) => inspectHandle(ctx, input),
    logsDump: (input) => dumpLogs(ctx, input),
    logs: (input) => readLogs(ctx, input),
    ls: (input = {}) => listWorkspaces(ctx, input),
    destroy: (input) => destroyWorkspace(ctx, input),
    gc: () => collectGarbage(ctx),
    doctor: (input = {}) => diagnose(ctx, input),
    probe: (input) => probeContainment(ctx, input),
    put: (input) => putFiles(ctx, input),
    declare: (input) => declareArtifact(ctx, input),
    export: (input) => exportArtifact(ctx, input),
    listFiles: (input) => listFiles(ctx, input),
    provider: (name) => ctx.provider(name),
    close() {
      store?.close();
      store = null;
    },
  };
}
