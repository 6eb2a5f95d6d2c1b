import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from './clock.js';
import { EngineError } from './errors.js';
import type { EventBus } from './events.js';
import type { IdGenerator } from './ids.js';
import type { Provider } from './provider.js';
import type { SqliteStore } from './store/sqlite-store.js';

/** Builds a provider on demand, so a verb pays only for the backend it uses. */
export type ProviderFactory = (context: { home: string; clock: Clock }) => Provider | Promise<Provider>;

/** What every verb receives: the engine's parts, no module-level state. */
export interface EngineContext {
  home: string;
  version: string;
  clock: Clock;
  ids: IdGenerator;
  events: EventBus;
  defaultProvider: string;
  providerNames(): string[];
  store(): SqliteStore;
  provider(name: string): Promise<Provider>;
  /** Where a job's captured output is kept. */
  logPath(jobId: string): string;
  /**
   * This engine call's id: every result carries it (provenance.trace_id) and
   * every journal row the call writes records it, so one call's rows can be
   * told apart from another's (#12 item 7). Verbs a verb runs inside itself
   * share it.
   */
  traceId: string;
  /**
   * Can a detached run's supervisor, another process, rebuild this provider
   * from the home alone? True for the registered providers only: one the
   * library caller passed in (a fake with a virtual clock) exists only here.
   */
  detachable?: (provider: string) => boolean;
  /**
   * Where this context's foreground jobs' egress proxies read their test mode (HEADSPACE_TEST_RESOLVER_MAP,
   * HEADSPACE_TEST_UPSTREAM_CA); process.env when unset. Set only by the probe, for its own side workspaces
   * (a loopback HTTPS upstream with a throwaway CA), so no other job in the process trusts that CA.
   */
  egressTestEnv?: NodeJS.ProcessEnv;
}

export function defaultHome(): string {
  return join(homedir(), '.headspace');
}

export function unknownProvider(name: string, known: string[]): EngineError {
  return new EngineError('UNKNOWN_PROVIDER', `unknown provider '${name.length > 40 ? `${name.slice(0, 40)}…` : name}'`, {
    hint: `choose one of: ${known.join(', ')}`,
  });
}
