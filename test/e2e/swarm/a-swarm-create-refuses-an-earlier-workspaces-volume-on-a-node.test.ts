/**
 * A swarm workspace's volume is made on its node by the service's task, by
 * name, and a node's engine answers a volume of a name it has with that
 * volume: an earlier workspace's volume of the same id left on a node (a
 * destroy that retained it in use, or could not verify its removal) was
 * mounted again with its files. A create now asks every usable node first
 * and refuses, before the service exists and before anything is recorded;
 * such a volume, whose service is gone, is a doctor leftover.
 */
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { rootTagOf } from '../../../src/providers/docker/docker-provider.js';
import { labelsOf } from '../../../src/providers/docker/plan-container.js';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { swarmReadiness } from '../../helpers/swarm-readiness.js';
import { NOT_DISPOSABLE } from '../../helpers/swarm-nodes.js';

const readiness = await swarmReadiness();
const { home, cleanup } = makeHome();
const env: Record<string, string> = { HEADSPACE_PROVIDER: 'swarm', HEADSPACE_SWARM_HOST: readiness.host, HEADSPACE_SWARM_CONSTRAINTS: NOT_DISPOSABLE };
const id = 'sv-1';
const volume = `hs-${rootTagOf(join(home, 'swarm'))}-${id}`;
// A worker of the three fixed nodes (scripts/setup-swarm.sh), where the earlier volume is left.
const worker = () => new Docker({ socketPath: join(readiness.state, 'n2', 'docker.sock') });
afterAll(async () => {
  if (readiness.ready) {
    await cliAsync(home, ['destroy', id, '--force'], env);
    await worker()
      .getVolume(volume)
      .remove()
      .catch(() => undefined);
  }
  await cleanup();
});

describe.runIf(readiness.ready)(`a swarm create over an earlier volume${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('is refused, naming the node, and made once the volume is gone', { timeout: 90_000 }, async () => {
    await worker().createVolume({ Name: volume });
    const refused = cli(home, ['create', '--workspace-id', id], env);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(`the volume of an earlier swarm workspace ${id} is still on node`);
    // Nothing was recorded; labelled as the task labels it, the volume is a doctor leftover, and its repair removes it.
    await worker().getVolume(volume).remove();
    await worker().createVolume({ Name: volume, Labels: labelsOf({ workspaceId: id, rootTag: rootTagOf(join(home, 'swarm')) }) });
    const doctor = cli(home, ['doctor'], env);
    expect(doctor.stdout).toContain(`volume ${volume} of workspace ${id} on node`);
    const applied = cli(home, ['doctor', '--repair', '--apply', '--verify'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`repaired: removed directory swarm volume ${volume} on node`);
    const made = await cliAsync(home, ['create', '--workspace-id', id], env);
    expect(made.code, made.stdout + made.stderr).toBe(0);
  });
});
