/**
 * What the docker provider can leave behind, found by its labels (never by
 * name alone, so another home's or another tool's objects are never ours):
 *  - a workspace volume whose container is gone (a create or a destroy
 *    interrupted between the two), listed as a `directory` leftover (a
 *    volume is a directory on the engine's host);
 *  - a volume-owner helper container that outlived its create, listed as a
 *    `process` leftover.
 * A workspace's own container is never a leftover here: it is the
 * workspace, which the engine reconciles against its store.
 */
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import type { Leftover } from '../../core/provider.js';
import { statusOf, type Engine } from './engine-client.js';
import { LABEL_HELPER, LABEL_ROOT, LABEL_WORKSPACE } from './plan-container.js';

const VOLUME = 'docker volume ';
const CONTAINER = 'docker container ';

export function dockerLeftovers(engine: Engine, rootTag: string, nameOf: (workspaceId: string) => string) {
  const ours = { label: [`${LABEL_ROOT}=${rootTag}`] };

  async function containerNames(): Promise<Map<string, { helper: boolean; workspaceId: string | null }>> {
    const containers = await engine.listContainers({ all: true, filters: ours });
    return new Map(
      containers.map((c) => [
        (c.Names[0] ?? '').replace(/^\//, ''),
        { helper: c.Labels[LABEL_HELPER] !== undefined, workspaceId: c.Labels[LABEL_WORKSPACE] ?? null },
      ]),
    );
  }

  async function list(): Promise<Leftover[]> {
    const containers = await containerNames();
    const found: Leftover[] = [];
    for (const [name, c] of containers) {
      if (c.helper)
        found.push({
          kind: 'process',
          workspaceId: c.workspaceId,
          target: `${CONTAINER}${name}`,
          detail: `helper container ${name} of a workspace create that did not finish`,
        });
    }
    const { Volumes } = await engine.listVolumes({ filters: ours });
    for (const volume of Volumes ?? []) {
      const workspaceId = volume.Labels?.[LABEL_WORKSPACE] ?? null;
      const workspaceContainer = workspaceId === null ? undefined : containers.get(nameOf(workspaceId));
      if (workspaceContainer === undefined || workspaceContainer.helper) {
        found.push({
          kind: 'directory',
          workspaceId,
          target: `${VOLUME}${volume.Name}`,
          detail: `volume ${volume.Name} of workspace ${workspaceId ?? '?'}, whose container is gone`,
        });
      }
    }
    return found;
  }

  async function remove(leftover: Leftover): Promise<void> {
    // Re-checked: only something still listed as a leftover is removed.
    const still = (await list()).some((l) => l.target === leftover.target);
    if (!still) return;
    try {
      if (leftover.target.startsWith(VOLUME)) await engine.getVolume(leftover.target.slice(VOLUME.length)).remove();
      else if (leftover.target.startsWith(CONTAINER)) await engine.getContainer(leftover.target.slice(CONTAINER.length)).remove({ force: true });
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw new ProviderError(`removing ${leftover.target} failed: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`, {
        hint: 'something may still use it; later, apply the repairs again',
        action: nextAction('doctor', { repair: true, apply: true }),
      });
    }
  }

  return { list, remove };
}
