/**
 * Background reclaim of a removed workspace's storage (#20 item 2). Remove
 * returns once the workspace is unreachable: its processes gone, its cgroups
 * removed, meta.json gone and the overlay a job binds at /workspace
 * unmounted. What is left is reachable by no job (the image's own mount at
 * `<mount base>/img/<id>`, 0700, is never bound into one) and only costs
 * time: unmounting the image (a process), unlinking a 1 GiB sparse file,
 * deleting the folder. A detached shell does that after the caller has its
 * answer, so a short-lived CLI process does not wait for it.
 *
 * The journal is `workspaces/<id>/reclaim.json`, written before the shell
 * starts; the shell holds a lock (flock) on the workspace folder while it
 * works and deletes the folder (the journal with it) last. So:
 *   - journal, folder locked: a reclaim is under way; nothing else touches it;
 *   - journal, folder unlocked (the shell died: a kill, a reboot): an
 *     interrupted reclaim, which doctor names as a leftover and `doctor
 *     --repair --apply` finishes (leftovers.ts, finishReclaim below);
 *   - no folder: reclaimed.
 * The folder keeps the workspace id taken until then: a create of the same
 * id waits for the reclaim (or finishes an interrupted one) first.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crashArmed } from '../../core/crash-points.js';
import { EngineError } from '../../core/errors.js';
import { removeTree } from '../../core/files/fd-walk.js';
import { currentOwner, isOwnerAlive, type Owner } from '../../core/store/owner.js';
import { releaseIdmapBinds } from './layered-storage.js';
import { SHARED_RUNTIME_FILES, HOME_MARKER } from './mount-base.js';
import { unmountWorkspaceFilesystem } from './workspace-filesystem.js';
import { RECLAIM_JOURNAL } from './layout.js';

const run = promisify(execFile);

/** Written by the shell once it holds the folder's lock: a shell that got that far and holds no lock any more has died. */
const RECLAIM_STARTED = 'reclaim.started';

interface ReclaimJournal {
  schema: 1;
  workspaceId: string;
  startedAt: string;
  /** The process that started the reclaim: while it lives and the shell may not have taken its lock yet, the reclaim counts as under way. */
  by: Owner;
}

/**
 * How long a journal whose shell never took its lock still counts as starting
 * (its remover alive): the spawn takes milliseconds, seconds on a loaded host.
 */
const STARTING_MS = 10_000;

/**
 * Journals the reclaim of the workspace folder `dir` and starts the shell
 * that unmounts `imageMount` (if any), deletes the folder, and takes the
 * mount base away when no workspace folder is left. Does not wait for it.
 */
export async function startReclaim(options: { id: string; dir: string; imageMount?: string; mountBase: string; workspacesDir: string }): Promise<void> {
  const { id, dir, mountBase } = options;
  const journal: ReclaimJournal = { schema: 1, workspaceId: id, startedAt: new Date().toISOString(), by: currentOwner() };
  await writeFile(join(dir, RECLAIM_JOURNAL), `${JSON.stringify(journal)}\n`, { mode: 0o600, flag: 'wx' });
  const pruned = [HOME_MARKER, ...SHARED_RUNTIME_FILES.map((name) => `runtime/${name}`)].map((name) => join(mountBase, name));
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      RECLAIM_SCRIPT,
      'headspace-reclaim',
      dir,
      options.imageMount ?? '',
      mountBase,
      options.workspacesDir,
      crashArmed('remove', 'in-reclaim') ? 'crash' : '',
      ...pruned,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.on('error', () => undefined); // no shell: the journal stays, and doctor finishes the reclaim
  child.unref();
}

/**
 * $1 the folder, $2 the image's mount (or empty), $3 the mount base, $4 the
 * workspaces folder, $5 `crash` (test-only: die holding the lock, as a kill
 * would), the rest the mount base's files to delete with it. Every step
 * tolerates a step already done (doctor may have finished part of it).
 */
const RECLAIM_SCRIPT = `
dir=$1 img=$2 base=$3 workspaces=$4 crash=$5
shift 5
# The folder gone already (a home deleted right after destroy): no lock to show, but the image must still be unmounted.
# (command: a failed redirection on a bare exec would end the shell.)
if command exec 9<"$dir" 2>/dev/null; then
  /usr/bin/flock 9
  # Lock taken: from here on, a folder with no lock held is an interrupted reclaim, whoever started it.
  command : >"$dir/${RECLAIM_STARTED}" 2>/dev/null
fi
[ "$crash" = crash ] && kill -9 $$
if [ -n "$img" ]; then
  /usr/bin/umount "$img" 2>/dev/null || /usr/bin/umount -l "$img" 2>/dev/null
  rmdir "$img" 2>/dev/null
fi
rm -rf "$dir"
if [ -z "$(ls -A "$workspaces" 2>/dev/null)" ]; then
  rm -f "$@"
  rmdir "$base/fs" "$base/ws" "$base/runtime" "$base/img" "$base" 2>/dev/null
fi
exit 0
`;

/** Is a reclaim of the folder `dir` journalled, and is it still under way? */
export async function reclaimState(dir: string): Promise<'none' | 'running' | 'interrupted'> {
  const journalPath = join(dir, RECLAIM_JOURNAL);
  const text = await readFile(journalPath, 'utf8').catch(() => undefined);
  // rm -rf may take the journal before the rest of the folder: the lock still tells a reclaim under way.
  if (text === undefined) return existsSync(dir) && (await folderLocked(dir)) ? 'running' : 'none';
  if (await folderLocked(dir)) return 'running';
  let journal: ReclaimJournal | undefined;
  try {
    journal = JSON.parse(text) as ReclaimJournal;
  } catch {
    journal = undefined;
  }
  // No lock and no sign the shell ever took it: it may still be starting, while the process that spawned it lives.
  if (existsSync(join(dir, RECLAIM_STARTED))) return 'interrupted';
  const age = Date.now() - ((await stat(journalPath).catch(() => undefined))?.mtimeMs ?? 0);
  if (journal?.by !== undefined && age < STARTING_MS && isOwnerAlive(journal.by)) return 'running';
  return 'interrupted';
}

/** Does a process hold the flock on `dir` (the reclaim shell)? A shell opens it without creating anything (flock(1) on a path would create a missing one). */
async function folderLocked(dir: string): Promise<boolean> {
  return run('/bin/sh', ['-c', 'exec 9<"$1" || exit 0; /usr/bin/flock -n 9 || exit 75; exit 0', 'headspace-reclaim-check', dir]).then(
    () => false,
    (error: { code?: number }) => error.code === 75,
  );
}

/**
 * Finishes what a reclaim (or a removal cut short) left: the overlay at
 * `fsMount` before the image's mount under it, the idmapped binds on the
 * image first, then the folder. Never recurses into a mounted filesystem.
 */
export async function finishReclaim(options: { dir: string; fsMount: string; imageMount: string }): Promise<void> {
  await unmountWorkspaceFilesystem(options.fsMount);
  await rmdir(options.fsMount).catch(() => undefined);
  await releaseIdmapBinds(options.imageMount);
  await unmountWorkspaceFilesystem(options.imageMount);
  await rmdir(options.imageMount).catch(() => undefined);
  await removeTree(options.dir); // fd-relative: a deep tree a job left cannot make this fail (#10 item 8)
}

/**
 * Waits (bounded) for a reclaim under way in `dir` to end; finishes it here if it was interrupted. One still under
 * way at the deadline is left to its shell and the caller refused (red team): finishing it here beside the live
 * shell would let the shell's `rm -rf` take the folder a create of the same id makes next.
 */
export async function settleReclaim(options: { dir: string; fsMount: string; imageMount: string }, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await reclaimState(options.dir);
    if (state === 'none') return;
    if (state === 'interrupted') return finishReclaim(options);
    if (Date.now() > deadline)
      throw new EngineError('WORKSPACE_EXISTS', `the storage of a removed workspace with this id is still being reclaimed (${timeoutMs / 1000} s so far)`, {
        hint: 'retry in a few seconds, or choose another id',
      });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
