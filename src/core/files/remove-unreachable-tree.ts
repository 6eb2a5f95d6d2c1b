/**
 * Removes a tree that no job can reach any more, fast: a layer that no chain
 * references (restore's old upper, a dropped checkpoint's layers). A job can
 * leave hundreds of thousands of entries in one within its budget, and
 * removeTree's two asynchronous calls per entry made restore and drop wait on
 * them (390,000 links: 46 s). coreutils `rm -rf --one-file-system` does the
 * same walk in one process: fd-relative (fts), never following a link, never
 * entering another filesystem; 50,000 links took 0.43 s against removeTree's
 * 4.5 s on the session-10 machine.
 *
 * Only for trees no job can change meanwhile: removeTree's checks against a
 * tree swapped under the walk are not repeated here. Whatever rm leaves (an
 * rm without --one-file-system, a mount point inside, a failure) removeTree
 * then takes on, and it refuses a mount point as before.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { removeTree } from './fd-walk.js';

const run = promisify(execFile);

export async function removeUnreachableTree(path: string): Promise<void> {
  await run('/bin/rm', ['-rf', '--one-file-system', '--', path]).catch(() => undefined);
  await removeTree(path);
}
