/**
 * Whether the swarm suites can run here, and why not. The swarm is the
 * three-node test swarm scripts/setup-swarm.sh started (HEADSPACE_SWARM_HOST,
 * HEADSPACE_SWARM_STATE); a machine without one (not root, no docker) skips
 * them with the reason, except under CI=true, where the test set-up starts
 * it and a missing swarm fails the run.
 */
import { createSwarmProvider } from '../../src/providers/swarm/swarm-provider.js';
import { NOT_DISPOSABLE } from './swarm-nodes.js';

export interface SwarmReadiness {
  ready: boolean;
  reason: string;
  /** The manager's socket and the state dir (for scripts/kill-swarm-node.sh). */
  host: string;
  state: string;
}

export async function swarmReadiness(): Promise<SwarmReadiness> {
  const host = process.env.HEADSPACE_SWARM_HOST ?? '';
  const state = process.env.HEADSPACE_SWARM_STATE ?? '';
  const verdict = (reason: string): SwarmReadiness => {
    if (process.env.CI === 'true') throw new Error(`CI=true but the swarm suites cannot run: ${reason}`);
    return { ready: false, reason, host, state };
  };
  const skip = process.env.HEADSPACE_SWARM_SKIP;
  if (skip !== undefined && skip !== '') return verdict(skip);
  if (host === '') return verdict('no test swarm: run eval "$(bash scripts/setup-swarm.sh)" as root first (scripts/test.sh does)');
  // The fixed nodes, where every swarm test but the node-loss ones places (those add a node of their own): a
  // disposable node killed on purpose by one file must not read as a broken swarm to another.
  const probe = await createSwarmProvider({ root: '/nonexistent/headspace-swarm-readiness', managerHost: host, constraints: [NOT_DISPOSABLE] }).probe();
  if (!probe.ready)
    return verdict(
      probe.checks
        .filter((c) => !c.ok)
        .map((c) => `${c.name}: ${c.detail}`)
        .join('; '),
    );
  return { ready: true, reason: '', host, state };
}
