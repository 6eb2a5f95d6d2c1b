/**
 * What headspace recorded under a home, as text, for the recording-guarantee
 * tests: every file except a workspace's own storage (its files folder, or
 * the filesystem image holding them: that is where contents belong), with the
 * fake provider's workspace FILES left out of its state file for the same
 * reason. Planted markers are searched for in these.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder } from './files-under.js';

/**
 * Storage, not a record: a workspace's files folder or image (where contents belong), and the native
 * provider's warm pool of images (`pool/ready-*.img`, `pool/making-*.img`): each is a freshly formatted
 * empty filesystem no workspace has used yet, since a claimed image is renamed away and never returned
 * (image-pool.ts). Each is up to a GiB, too big to read as one string.
 */
export function isStorage(path: string): boolean {
  return /\/workspaces\/[^/]+\/(files|storage\.img)$/.test(path) || /\/pool\/(ready|making)-[^/]+\.img$/.test(path);
}

/** Each recorded file under `home`: its path and its bytes as latin1 text. */
export function recordedSurfaces(home: string): Array<{ path: string; text: string }> {
  return filesUnder(home, isStorage).map((path) => {
    const bytes = readFileSync(path);
    if (path.endsWith(join('fake', 'state.json'))) {
      const state = JSON.parse(bytes.toString('utf8')) as { workspaces: Record<string, { files?: unknown }> };
      for (const ws of Object.values(state.workspaces)) delete ws.files;
      return { path, text: JSON.stringify(state) };
    }
    return { path, text: bytes.toString('latin1') };
  });
}
