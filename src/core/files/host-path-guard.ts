/**
 * Host paths the CLI and library never read from or write to for `put` and
 * `export --to` (#10 item 6): the kernel's pseudo filesystems. The caller is
 * the user, so any other path is theirs to choose; but `/proc/<pid>/environ`,
 * `/proc/self/fd/N`, `/sys/...` and `/dev/...` are not files in any useful
 * sense (an export into /sys/... writes a kernel setting; a put from /dev/zero
 * never ends), and a link to them is refused just the same: the check is made
 * on the path as given AND on where its existing part really resolves.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import { EngineError } from '../errors.js';

export const RESERVED_HOST_ROOTS: readonly string[] = ['/proc', '/sys', '/dev'];

/** The reserved root `absolute` lies under (or is), if any. Pure. */
export function reservedRootOf(absolute: string): string | undefined {
  return RESERVED_HOST_ROOTS.find((root) => absolute === root || absolute.startsWith(`${root}/`));
}

/** Where the longest existing prefix of `absolute` resolves, with the rest appended unchanged. */
function resolvedThroughLinks(absolute: string): string {
  let head = absolute;
  let tail = '';
  for (;;) {
    try {
      const real = realpathSync(head);
      return tail === '' ? real : `${real === sep ? '' : real}/${tail}`;
    } catch {
      const parent = dirname(head);
      if (parent === head) return absolute;
      tail = tail === '' ? basename(head) : `${basename(head)}/${tail}`;
      head = parent;
    }
  }
}

/**
 * Refuses `hostPath` (exit 1) when it, or where it resolves, is under /proc,
 * /sys or /dev. `role` names it in the message: `put source`, `export destination`.
 * For a destination only its folder is resolved: the last component itself is
 * never followed (export refuses a link there on its own).
 */
export function refuseReservedHostPath(hostPath: string, role: 'put source' | 'export destination'): void {
  const absolute = resolve(hostPath);
  const resolved =
    role === 'export destination' ? `${resolvedThroughLinks(dirname(absolute)).replace(/\/$/, '')}/${basename(absolute)}` : resolvedThroughLinks(absolute);
  const root = reservedRootOf(absolute) ?? reservedRootOf(resolved);
  if (root === undefined) return;
  throw new EngineError(
    'BAD_PATH',
    `the ${role} ${absolute.slice(0, 120)} is under ${root}${reservedRootOf(absolute) ? '' : ` (it resolves to ${resolved.slice(0, 120)})`}; headspace never reads or writes ${RESERVED_HOST_ROOTS.join(', ')}`,
    {
      hint: role === 'put source' ? 'copy the data to a regular file first, and put that' : 'choose a destination in a regular folder',
    },
  );
}
