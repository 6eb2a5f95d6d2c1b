/**
 * What the swarm provider can leave behind: a workspace volume on a node
 * whose service is gone (a destroy that found it still in use, or could not
 * reach its node; a create cut short after its task made it). Found by its
 * labels on every usable node (never by name alone, so another home's are
 * never ours), listed as a `directory` leftover (a volume is a directory on
 * its node), and removed on that node's engine. A create of its id refuses
 * it meanwhile (swarm-provider.ts, refuseEarlierVolume).
 */
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import type { Leftover } from '../../core/provider.js';
import { statusOf, type Engine } from '../docker/engine-client.js';
import { LABEL_ROOT, LABEL_WORKSPACE } from '../docker/plan-container.js';
import { PROBE_TIMEOUT_MS, withinMs } from '../docker/probe.js';

const VOLUME = 'swarm volume ';
const TARGET = /^swarm volume (\S+) on node (.+)$/;

export interface SwarmLeftoverDeps {
  rootTag: string;
  /** The usable nodes and their engines' addresses (the probe's). */
  nodes(): Promise<ReadonlyArray<{ engine: string; name: string }>>;
  engineOf(address: string): Engine;
  /** The workspaces whose service exists. */
  serviceIds(): Promise<string[]>;
}

export function swarmLeftovers(deps: SwarmLeftoverDeps) {
  async function list(): Promise<Leftover[]> {
    const [nodes, ids] = await Promise.all([deps.nodes(), deps.serviceIds()]);
    const live = new Set(ids);
    const each = await Promise.all(
      nodes.map(async (node) => {
        const { Volumes } = await withinMs(PROBE_TIMEOUT_MS, deps.engineOf(node.engine).listVolumes({ filters: { label: [`${LABEL_ROOT}=${deps.rootTag}`] } }));
        return (Volumes ?? [])
          .filter((volume) => !live.has(volume.Labels?.[LABEL_WORKSPACE] ?? ''))
          .map((volume): Leftover => {
            const workspaceId = volume.Labels?.[LABEL_WORKSPACE] ?? null;
            return {
              kind: 'directory',
              workspaceId,
              target: `${VOLUME}${volume.Name} on node ${node.name}`,
              detail: `volume ${volume.Name} of workspace ${workspaceId ?? '?'} on node ${node.name}, whose service is gone`,
            };
          });
      }),
    );
    return each.flat();
  }

  /** Removes one, re-checked first: false when it is no longer a leftover (its id made again, say). */
  async function remove(leftover: Leftover): Promise<boolean> {
    if (!(await list()).some((l) => l.target === leftover.target)) return false;
    const [, name, nodeName] = TARGET.exec(leftover.target) ?? [];
    const node = (await deps.nodes()).find((n) => n.name === nodeName);
    if (name === undefined || node === undefined) return false;
    try {
      await withinMs(PROBE_TIMEOUT_MS, deps.engineOf(node.engine).getVolume(name).remove());
    } catch (error) {
      if (statusOf(error) === 404) return true;
      throw new ProviderError(`removing ${leftover.target} failed: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`, {
        hint: 'something on that node may still use it; later, apply the repairs again',
        action: nextAction('doctor', { repair: true, apply: true }),
      });
    }
    return true;
  }

  return { list, remove };
}
