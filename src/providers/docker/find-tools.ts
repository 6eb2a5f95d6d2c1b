/**
 * Where a command name resolves in a docker profile's image (#17, plan's
 * setup-tool check), without running anything: a container is created from
 * the image and never started (labelled as our helper, so doctor's sweep
 * finds it if this process dies first), each directory of the job's PATH is
 * asked through the Engine's archive stat, a link is followed to what it
 * resolves to, and the container is removed. About a hundred milliseconds,
 * paid by plan and prepare only when the manifest has setup commands.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { kindOfMode, statPath, type Engine } from './engine-client.js';
import { CONTAINER_PATH, LABEL_HELPER, LABEL_ROOT } from './plan-container.js';

export async function findImageTools(
  engine: Engine,
  input: { imageId: string; rootTag: string; names: readonly string[] },
): Promise<Record<string, string | null>> {
  const container = await engine.createContainer({
    name: `hs-${input.rootTag}-tools-${randomBytes(4).toString('hex')}`,
    Image: input.imageId,
    Entrypoint: ['true'],
    Labels: { [LABEL_ROOT]: input.rootTag, [LABEL_HELPER]: 'tool-lookup' },
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'], ReadonlyRootfs: true },
  });
  try {
    const found: Record<string, string | null> = {};
    for (const name of input.names) {
      found[name] = null;
      if (name === '' || name.includes('/') || name.includes('\0')) continue;
      for (const dir of CONTAINER_PATH.split(':')) {
        const candidate = posix.join(dir, name);
        if (await isExecutable(engine, container.id, candidate)) {
          found[name] = candidate;
          break;
        }
      }
    }
    return found;
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** A regular file with an execute bit, after at most a few links (docker's stat reports where a link resolves). */
async function isExecutable(engine: Engine, containerId: string, path: string): Promise<boolean> {
  let at = path;
  for (let hops = 0; hops < 8; hops++) {
    const stat = await statPath(engine, containerId, Buffer.from(at));
    if (stat === undefined) return false;
    const kind = kindOfMode(stat.mode);
    if (kind === 'file') return (stat.mode & 0o111) !== 0;
    if (kind !== 'symlink' || stat.linkTarget === '' || stat.linkTarget === at) return false;
    at = posix.isAbsolute(stat.linkTarget) ? stat.linkTarget : posix.join(posix.dirname(at), stat.linkTarget);
  }
  return false;
}
