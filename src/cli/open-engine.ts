import { createHeadspace } from '../api/index.js';
import type { Engine } from '../core/engine.js';

/** The CLI's engine: home from HEADSPACE_HOME, providers from the registry. */
export async function openEngineForCli(env: NodeJS.ProcessEnv, provider: string | undefined): Promise<Engine> {
  const engine = createHeadspace({ ...(env.HEADSPACE_HOME ? { home: env.HEADSPACE_HOME } : {}), ...(provider ? { defaultProvider: provider } : {}) });
  if (provider !== undefined) await engine.requireProvider(provider); // an unknown name fails here, before any work
  return engine;
}
