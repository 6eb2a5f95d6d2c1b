import { createHeadspace } from '../api/index.js';
import type { Engine } from '../core/engine.js';

/** The CLI's engine: home from HEADSPACE_HOME, providers from the registry. */
export async function openEngineForCli(env: NodeJS.ProcessEnv, provider: string | undefined): Promise<Engine> {
  const engine = createHeadspace({ ...(env.HEADSPACE_HOME ? { home: env.HEADSPACE_HOME } : {}), ...(provider ? { defaultProvider: provider } : {}) });
  if (provider !== undefined) await engine.requireProvider(provider); // an unknown name fails here, before any work
  return engine;
}

/** An engine for one CLI call: opened for it and closed after it, or lent by `headspace serve`'s pool (#20). */
export interface EngineLease {
  engine: Engine;
  release(): void;
}

export interface EnginePool {
  lease(env: NodeJS.ProcessEnv, provider: string | undefined): Promise<EngineLease>;
}

/** One call's own engine, closed when released: the in-process CLI. */
export async function ownEngine(env: NodeJS.ProcessEnv, provider: string | undefined): Promise<EngineLease> {
  const engine = await openEngineForCli(env, provider);
  return { engine, release: () => engine.close() };
}

/**
 * `headspace serve`'s engines, one per home and --provider, kept open across
 * requests: the store handle, the verbs' loaded modules and the providers'
 * host probes are what a CLI call paid for each time. All state is in the
 * SQLite store other processes share, read afresh by every verb; the engine
 * holds no copy of a record (the MCP server and the dashboard keep one open
 * for hours the same way).
 */
export function enginePool(): EnginePool & { closeAll(): void } {
  const engines = new Map<string, Promise<Engine>>();
  return {
    async lease(env, provider) {
      const key = `${env.HEADSPACE_HOME ?? ''}\0${provider ?? ''}`;
      let opening = engines.get(key);
      if (!opening) {
        opening = openEngineForCli(env, provider);
        engines.set(key, opening);
        // A provider name that is refused is not kept: the next call is refused the same way, afresh.
        opening.catch(() => engines.delete(key));
      }
      return { engine: await opening, release: () => undefined };
    },
    closeAll() {
      for (const opening of engines.values()) opening.then((engine) => engine.close()).catch(() => undefined);
      engines.clear();
    },
  };
}
