/**
 * Gives a new workspace volume's root to the job user. The volume's root
 * belongs to root; the archive API cannot chown a mount point, and the
 * workspace container holds no capability, so a one-shot helper container
 * with CAP_CHOWN alone (no network, read-only rootfs, our own fixed command)
 * does it, before any job could run. Shared by the docker provider and the
 * swarm provider (#22), which runs it on the engine of the node Swarm chose.
 */
import type { ContainerCreateOptions } from 'dockerode';
import { ProviderError } from '../../core/errors.js';
import type { JobUser } from '../../core/job-identity.js';
import type { Engine } from './engine-client.js';
import { planVolumeOwner } from './plan-container.js';

export async function giveVolumeToJobUser(
  engine: Engine,
  input: { volumeName: string; imageId: string; user: JobUser; labels: Record<string, string> },
): Promise<void> {
  const helper = await engine.createContainer(
    planVolumeOwner({
      name: `${input.volumeName}-own`,
      imageId: input.imageId,
      volumeName: input.volumeName,
      user: input.user,
      labels: input.labels,
    }) as unknown as ContainerCreateOptions,
  );
  try {
    await helper.start();
    const { StatusCode } = (await helper.wait()) as { StatusCode: number };
    if (StatusCode !== 0)
      throw new ProviderError(`giving the workspace volume to its job user failed (chown exited ${StatusCode})`, {
        hint: 'the profile image needs /bin/chown (busybox or coreutils)',
      });
  } finally {
    await helper.remove({ force: true }).catch(() => undefined);
  }
}
