/**
 * The job starts through the exec shim (plan-job-entry.ts), which closes
 * inherited descriptors and applies a Landlock ruleset before it execs the
 * command (#10 items 1 and 13). The planned rules give read and execute to
 * the read-only runtime view and the workspace's host paths only, read to
 * /proc, read/write to /workspace, /tmp, /dev/shm and the device nodes jobs
 * use, and nothing to any other path; the command follows `--` untouched.
 */
import { expect, it } from 'vitest';
import { planBwrap, RESERVED_DESTINATIONS } from '../../../../src/providers/native/plan-bwrap.js';
import { EXEC_HELPER_DEST, planJobEntry } from '../../../../src/providers/native/plan-job-entry.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';

const exposures = [
  { kind: 'ro-bind', src: '/usr', dest: '/usr' },
  { kind: 'symlink', target: 'usr/bin', dest: '/bin' },
  { kind: 'ro-bind-try', src: '/etc/ssl', dest: '/etc/ssl' },
  { kind: 'ro-bind', src: '/run/hs/runtime/passwd', dest: '/etc/passwd' },
] as const;

const entry = (argv: string[], hostPaths: string[] = []) => planJobEntry({ argv, exposures, hostPaths });

function rules(args: string[]): Array<[string, string]> {
  const end = args.indexOf('--');
  const pairs: Array<[string, string]> = [];
  for (let i = 2; i < end; i += 2) pairs.push([args[i]!, args[i + 1]!]);
  return pairs;
}

it('starts the shim at its reserved sandbox path with Landlock asked for, and the command after --', () => {
  const args = entry(['python3', '-c', 'print(1)', '--', '; rm -rf /']);
  expect(args.slice(0, 2)).toEqual([EXEC_HELPER_DEST, '--landlock']);
  expect(args.slice(args.indexOf('--') + 1)).toEqual(['python3', '-c', 'print(1)', '--', '; rm -rf /']);
  expect(RESERVED_DESTINATIONS).toContain(EXEC_HELPER_DEST);
});

it('gives read and execute to bound runtime paths and host paths, never to a symlink or the host source', () => {
  const rx = rules(entry(['true'], ['/opt/data'])).filter(([rule]) => rule === '--rx').map(([, path]) => path);
  expect(rx).toEqual(['/usr', '/etc/ssl', '/etc/passwd', '/opt/data']);
});

it('writes only to the workspace, /tmp, /dev/shm and device nodes, and only reads /proc', () => {
  const all = rules(entry(['true']));
  expect(all.filter(([rule]) => rule === '--rw').map(([, p]) => p)).toEqual(['/workspace', '/tmp', '/dev/shm']);
  expect(all.filter(([rule]) => rule === '--read').map(([, p]) => p)).toEqual(['/proc']);
  expect(all.filter(([rule]) => rule === '--list').map(([, p]) => p)).toEqual(['/']);
  for (const [rule, path] of all.filter(([rule]) => rule === '--dev')) expect(path, rule).toMatch(/^\/dev\/(null|zero|full|random|urandom|tty|ptmx|pts)$/);
});

it('refuses an empty command', () => {
  expect(() => entry([])).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
});

it('binds the shim read-only at its sandbox path, before the root is remounted read-only', () => {
  const { args } = planBwrap(bwrapPlanInput());
  const at = args.indexOf(EXEC_HELPER_DEST);
  expect(args.slice(at - 2, at + 1)).toEqual(['--ro-bind', '/run/hs/runtime/headspace-exec', EXEC_HELPER_DEST]);
  expect(args.slice(-2)).toEqual(['--remount-ro', '/']);
});
