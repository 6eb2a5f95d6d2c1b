/**
 * Starts a child the way a careless caller would (#10 item 1): holding a
 * directory descriptor of / at fd 200 and a pipe at fd 251, neither marked
 * close-on-exec in the child (spawn dup2()s them into place).
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export const LEAKED_FDS = [200, 251] as const;

export function spawnLeakingDescriptors(
  command: string,
  args: string[],
  options: Omit<SpawnSyncOptions, 'stdio' | 'encoding'>,
): { code: number; stdout: string; stderr: string } {
  const root = openSync('/', 'r');
  try {
    const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
    while (stdio.length <= LEAKED_FDS[1]) stdio.push('ignore');
    stdio[LEAKED_FDS[0]] = root;
    stdio[LEAKED_FDS[1]] = 'pipe';
    const result = spawnSync(command, args, { maxBuffer: 64 * 1024 * 1024, ...options, stdio, encoding: 'utf8' });
    return { code: result.status ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  } finally {
    closeSync(root);
  }
}
