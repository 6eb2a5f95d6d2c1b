import { isEngineError } from '../errors.js';
import type { Provider } from '../provider.js';

/**
 * What a workspace path is, through the provider contract alone: a regular
 * file, nothing, a directory, or something else (a link or special file, or
 * a question the provider could not answer). Used to say precisely why a
 * declared artifact cannot be exported (#12 items 9 and 13).
 */
export async function workspaceFileState(provider: Provider, workspaceId: string, path: string): Promise<'file' | 'missing' | 'directory' | 'unknown'> {
  try {
    const stream = await provider.read(workspaceId, path, 1);
    await stream.close();
    return 'file';
  } catch (error) {
    if (!isEngineError(error)) return 'unknown';
    if (error.code === 'FILE_NOT_FOUND') return 'missing';
    // A directory or a special file: only a directory lists.
    if (error.code === 'NOT_A_REGULAR_FILE')
      return provider.list(workspaceId, path, 1).then(
        () => 'directory' as const,
        () => 'unknown' as const,
      );
    return 'unknown';
  }
}
