/**
 * `--allow-host-path` resolution (#10 item 7). A path is resolved once, at
 * create, with realpath; both the path as given and what it resolves to must
 * clear the sandbox's reserved destinations and headspace's own state (its
 * home, the provider root, the mount base: exposing them would expose other
 * workspaces). The resolved path is recorded and is what bwrap binds. At
 * every run the path is resolved again and refused if the answer changed: a
 * link swapped after create (e.g. to /etc) must not be followed.
 */
import { realpathSync } from 'node:fs';
import { EngineError } from '../../core/errors.js';
import { assertHostPathAllowed } from './plan-bwrap.js';

/** Is `a` equal to `b`, inside it, or one of its ancestors? */
function overlaps(a: string, b: string): boolean {
  const within = (inner: string, outer: string) => outer === '/' || inner === outer || inner.startsWith(`${outer}/`);
  return within(a, b) || within(b, a);
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Resolves and checks each host path; `protectedDirs` are headspace's own state (any that exist). */
export function resolveHostPaths(hostPaths: readonly string[], protectedDirs: readonly string[]): Record<string, string> {
  const guarded = protectedDirs.flatMap((d) => [d, realpathOrUndefined(d)]).filter((d): d is string => d !== undefined);
  const resolved: Record<string, string> = {};
  for (const hostPath of hostPaths) {
    assertHostPathAllowed(hostPath);
    const real = realpathOrUndefined(hostPath);
    if (real === undefined)
      throw new EngineError('BAD_ARGUMENT', `host path ${hostPath.slice(0, 80)} does not exist`, {
        hint: 'give an existing absolute host path in hostPaths (check it with ls -ld)',
      });
    try {
      assertHostPathAllowed(real);
    } catch (error) {
      throw new EngineError(
        'POLICY_DENIED',
        `host path '${hostPath.slice(0, 80)}' resolves to '${real.slice(0, 80)}', which the sandbox cannot expose: ${(error as Error).message}`,
        {
          hint: 'expose a path outside /, /workspace, /tmp, /proc, /dev, /usr, /etc and the /bin-style links, through no link into them',
        },
      );
    }
    const state = guarded.find((d) => overlaps(real, d));
    if (state !== undefined) {
      throw new EngineError(
        'POLICY_DENIED',
        `host path '${hostPath.slice(0, 80)}' resolves to '${real.slice(0, 80)}', which overlaps headspace's own state (${state.slice(0, 80)}): it would expose other workspaces`,
        {
          hint: 'expose a directory that neither contains nor lies inside HEADSPACE_HOME or /run/headspace-native',
        },
      );
    }
    resolved[hostPath] = real;
  }
  return resolved;
}

/**
 * At run: the recorded resolution must still hold. A workspace made before
 * resolutions were recorded is treated as having recorded the path itself,
 * so one that was exposed through a link is refused rather than followed.
 */
export function verifyHostPaths(
  hostPaths: readonly string[],
  recorded: Readonly<Record<string, string>> | undefined,
  protectedDirs: readonly string[],
): Record<string, string> {
  const now = resolveHostPaths(hostPaths, protectedDirs);
  for (const hostPath of hostPaths) {
    const then = recorded?.[hostPath] ?? hostPath;
    if (now[hostPath] !== then) {
      throw new EngineError(
        'POLICY_DENIED',
        `host path '${hostPath.slice(0, 80)}' now resolves to '${now[hostPath]!.slice(0, 80)}', not '${then.slice(0, 80)}' as when the workspace was created`,
        {
          hint: 'a link in the path changed since create; destroy the workspace and create it again if the new target is intended',
        },
      );
    }
  }
  return now;
}
