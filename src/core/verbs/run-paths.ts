/**
 * How `run --cwd` meets the workspace's other paths (#12 item 9).
 *
 * `--cwd` moves only the job. `--input` destinations and `--declare` names
 * stay relative to the workspace root, like every other verb's paths (put,
 * declare, export, ls-files): an artifact keeps one name from the run that
 * declares it to the export that takes it, whatever directory the job ran
 * in. Two checks make the difference visible instead of silent:
 *  - a `--cwd` that is not a directory is refused before anything is
 *    recorded (it used to become an infrastructure failure with a job
 *    record, exit 7);
 *  - after the job, each artifact it declared that is not a file in the
 *    workspace is a warning naming where it was looked for, and the
 *    cwd-relative name when the job wrote there instead.
 */
import { nextAction } from '../next-action.js';
import { EngineError, isEngineError } from '../errors.js';
import { workspaceFileState } from '../files/workspace-file-state.js';
import type { Provider } from '../provider.js';
import { quotedName } from '../result/visible-text.js';
import type { Declaration } from './declare.js';

/**
 * Refuses a working directory that is not a directory in the workspace,
 * unless one of the run's inputs will make it (its destination lies under it).
 */
export async function checkWorkingDirectory(provider: Provider, workspaceId: string, cwd: string, inputDestinations: readonly string[]): Promise<void> {
  if (cwd === '' || inputDestinations.some((d) => d === cwd || d.startsWith(`${cwd}/`))) return;
  try {
    await provider.list(workspaceId, cwd, 1);
  } catch (error) {
    if (!isEngineError(error) || (error.code !== 'FILE_NOT_FOUND' && error.code !== 'NOT_A_REGULAR_FILE')) throw error;
    const what = error.code === 'FILE_NOT_FOUND' ? 'does not exist' : 'is a file, not a directory';
    throw new EngineError('BAD_PATH', `the working directory (cwd) ${quotedName(cwd)} ${what} in workspace ${workspaceId}; nothing ran`, {
      hint: `cwd is relative to /workspace: make it first with a job (mkdir -p ${cwd}), or see the directories there are`,
      action: nextAction('ls-files', { workspaceId }),
    });
  }
}

/**
 * One warning per declared artifact the job did not leave as a file (names are workspace-root relative), and those
 * names, so the result does not also offer an export of them that would fail (a new user's run, status and inspect did).
 */
export async function unproducedDeclarationWarnings(
  provider: Provider,
  workspaceId: string,
  declarations: readonly Declaration[],
  cwd: string,
): Promise<{ warnings: string[]; missing: string[] }> {
  const warnings: string[] = [];
  const missing: string[] = [];
  for (const { name } of declarations) {
    const found = await workspaceFileState(provider, workspaceId, name);
    if (found === 'file' || found === 'unknown') continue;
    missing.push(name);
    const inCwd = cwd === '' ? null : `${cwd}/${name}`;
    const there = inCwd !== null && (await workspaceFileState(provider, workspaceId, inCwd)) === 'file';
    const where = `/workspace/${name}`;
    if (found === 'directory')
      warnings.push(
        `declared artifact ${quotedName(name)} is a directory (${where}); export takes one file: declare a file inside it, or an archive the job makes`,
      );
    else if (there)
      warnings.push(
        `declared artifact ${quotedName(name)} was not produced at ${where}: artifact names are relative to the workspace root, not to the cwd; the job wrote ${quotedName(inCwd)}: declare that name instead`,
      );
    else
      warnings.push(
        `declared artifact ${quotedName(name)} was not produced: there is no file ${where} (artifact names are relative to the workspace root${cwd === '' ? '' : `, not to the cwd ${cwd}`}); list the workspace's files (ls-files) to find what the job wrote`,
      );
  }
  return { warnings, missing };
}
