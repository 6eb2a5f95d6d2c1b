import { createHeadspace } from '../api/index.js';
import type { Engine } from '../core/engine.js';
import type { Face } from '../core/invocation.js';

/** The CLI's engine: home from HEADSPACE_HOME, providers from the registry. */
export async function openEngineForCli(env: NodeJS.ProcessEnv, provider: string | undefined, face: Face = 'cli'): Promise<Engine> {
  const engine = createHeadspace({ ...(env.HEADSPACE_HOME ? { home: env.HEADSPACE_HOME } : {}), ...(provider ? { defaultProvider: provider } : {}), face });
  if (provider !== undefined) await engine.requireProvider(provider); // an unknown name fails here, before any work
  return engine;
}
