import { join } from 'node:path';
import type { ProviderFactory } from '../core/context.js';

/**
 * Name → lazy factory. A verb only loads the provider it uses (the native
 * provider's modules are not imported by `--provider fake` runs).
 */
export const PROVIDERS: Record<string, ProviderFactory> = {
  fake: async ({ home, clock }) => {
    const { createFakeProvider } = await import('./fake/fake-provider.js');
    return createFakeProvider({ clock, persistPath: join(home, 'fake', 'state.json') });
  },
  native: async ({ home }) => {
    const { createNativeProvider } = await import('./native/native-provider.js');
    return createNativeProvider({ root: join(home, 'native'), stateHome: home, sweepOtherHomes: true });
  },
  docker: async ({ home }) => {
    const { createDockerProvider } = await import('./docker/docker-provider.js');
    return createDockerProvider({ root: join(home, 'docker') });
  },
  // Workspaces as Swarm services on the manager at HEADSPACE_SWARM_HOST (#22); not ready (and says why) without one.
  swarm: async ({ home }) => {
    const { createSwarmProvider } = await import('./swarm/swarm-provider.js');
    return createSwarmProvider({ root: join(home, 'swarm') });
  },
};

export function defaultProviderName(): string {
  return process.env.HEADSPACE_PROVIDER ?? (process.platform === 'linux' ? 'native' : 'fake');
}
