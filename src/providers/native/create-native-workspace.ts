/**
 * The native provider's create: checks first (plan, host readiness, the
 * host's capacity), then the workspace's folder, its storage, its cgroup and
 * runtime directory, and meta.json last. Until meta.json exists a crash
 * leaves a folder without it (and perhaps a mount under the mount base),
 * which leftovers.ts names and removes with the image in it; a failure undoes
 * what this call made.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { EngineError } from '../../core/errors.js';
import { validateId } from '../../core/ids.js';
import { assertWithinCapacity } from '../../core/policy/host-capacity.js';
import type { WorkspaceDescriptor, WorkspaceSpec } from '../../core/provider.js';
import { checkNativePlan, validateNativePolicy } from './check-native-policy.js';
import type { NativeParts } from './native-parts.js';
import { PROVIDER_NAME } from './probe.js';
import { removeRuntimeFiles } from './runtime-files.js';
import type { LayerStack } from './overlay-layers.js';
import type { StorageAttempt } from './workspace-storage.js';
import { writeMeta, type WorkspaceMeta } from './workspace-meta.js';

/** `base`: a fork's frozen chain (#14), which the new workspace's files start as. */
export async function createNativeWorkspace(
  parts: NativeParts,
  spec: WorkspaceSpec,
  base?: Pick<LayerStack, 'lowers' | 'lowerFacts'>,
): Promise<WorkspaceDescriptor> {
  const { layout, host, users, storage } = parts;
  const id = validateId('workspace', spec.workspaceId);
  checkNativePlan(spec, parts.protectedDirs);
  const resolvedHostPaths = validateNativePolicy(spec.policy, 'create', parts.protectedDirs);
  const env = await host.readyEnv();
  const user = users.forCreate(spec.jobUser);
  // Again here, just before the image is made: the engine checked at its own start, and a
  // library caller may not go through the engine (the free space changes in between).
  assertWithinCapacity(spec.policy.budget, await host.capacity(), PROVIDER_NAME);
  await mkdir(layout.workspacesDir, { recursive: true, mode: 0o711 });
  try {
    await mkdir(layout.workspaceDir(id), { mode: 0o711 }).catch(async (error: NodeJS.ErrnoException) => {
      // The id of a workspace just removed is taken until its storage is reclaimed (reclaim-storage.ts): wait for that, once.
      if (error.code !== 'EEXIST' || existsSync(layout.metaPath(id))) throw error;
      await storage.settleReclaim(id);
      await mkdir(layout.workspaceDir(id), { mode: 0o711 });
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new EngineError('WORKSPACE_EXISTS', `native workspace ${id} already exists`, { hint: 'choose another id, or remove it first' });
    throw error;
  }
  let meta: WorkspaceMeta;
  const attempt: StorageAttempt = { mountedHere: false };
  try {
    const made = await storage.make(id, env, spec.policy.budget.storageBytes, user, attempt, base);
    await env.cgroups.driver!.prepare(layout.cgroupName(id), spec.policy.budget, user);
    await (await host.reachable()).makeRuntimeDir(id);
    const profile = await host.profile();
    meta = {
      schema: 1,
      workspaceId: id,
      profile: spec.profile,
      policy: spec.policy,
      environmentDigest: profile.digest,
      createdAt: new Date().toISOString(),
      ...made,
      ...(users.asRoot ? { jobUser: user } : {}),
      resolvedHostPaths,
    };
    await writeMeta(layout.metaPath(id), meta);
  } catch (error) {
    // Undo what this call made (a leftover cgroup is named by doctor); never delete an image still mounted.
    await (await host.reachable()).release(id).catch(() => undefined);
    await removeRuntimeFiles((await host.reachable()).runtimeDir(id)).catch(() => undefined);
    await storage.undo(id, attempt);
    throw error;
  }
  // Awaited only until the refill's shell is spawned (a CLI process exits right after the result), never for the images.
  await storage.refillPool(env).catch(() => undefined);
  return { workspaceId: id, state: 'ready', profile: spec.profile, environmentDigest: meta.environmentDigest, storageBytes: 0 };
}
