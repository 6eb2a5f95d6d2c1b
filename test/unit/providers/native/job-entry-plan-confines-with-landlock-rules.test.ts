/**
 * The job starts through the exec shim (plan-job-entry.ts), which closes
 * inherited descriptors and applies a Landlock ruleset before it execs the
 * command (#10 items 1 and 13). The planned rules give read and execute to
 * the read-only runtime view and the workspace's host paths only, read to
 * /proc and the generated /etc files, read/write to /workspace, /tmp,
 * /dev/shm and the device nodes jobs use, and nothing to any other path; the
 * command follows `--` untouched.
 */
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { EXEC_HELPER_ENTRY } from '../../../../src/providers/native/launcher-fds.js';
import { planJobEntry } from '../../../../src/providers/native/plan-job-entry.js';

const exposures = [
  { kind: 'ro-bind', src: '/usr', dest: '/usr' },
  { kind: 'symlink', target: 'usr/bin', dest: '/bin' },
  { kind: 'ro-bind-try', src: '/etc/ssl', dest: '/etc/ssl' },
  { kind: 'data', fd: 6, dest: '/etc/passwd' },
] as const;

const entry = (argv: string[], hostPaths: string[] = []) => planJobEntry({ argv, exposures, hostPaths, budget: defaultPolicy().budget });

/** The RULE PATH pairs between `--landlock` and `--`. */
function rules(args: string[]): Array<[string, string]> {
  const end = args.indexOf('--');
  const pairs: Array<[string, string]> = [];
  for (let i = args.indexOf('--landlock') + 1; i < end; i += 2) pairs.push([args[i]!, args[i + 1]!]);
  return pairs;
}

it("starts the shim through the launcher's descriptor with Landlock asked for, and the command after --", () => {
  const args = entry(['python3', '-c', 'print(1)', '--', '; rm -rf /']);
  expect(args[0]).toBe(EXEC_HELPER_ENTRY);
  expect(args).toContain('--landlock');
  expect(args.slice(args.indexOf('--') + 1)).toEqual(['python3', '-c', 'print(1)', '--', '; rm -rf /']);
});

it('gives read and execute to bound runtime paths and host paths, never to a symlink or the host source', () => {
  const rx = rules(entry(['true'], ['/opt/data']))
    .filter(([rule]) => rule === '--rx')
    .map(([, path]) => path);
  expect(rx).toEqual(['/usr', '/etc/ssl', '/opt/data']);
});

it('writes only to the workspace, /tmp, /dev/shm and device nodes, and only reads /proc and the generated files', () => {
  const all = rules(entry(['true']));
  expect(all.filter(([rule]) => rule === '--rw').map(([, p]) => p)).toEqual(['/workspace', '/tmp', '/dev/shm']);
  expect(all.filter(([rule]) => rule === '--read').map(([, p]) => p)).toEqual(['/proc', '/etc/passwd']);
  expect(all.filter(([rule]) => rule === '--list').map(([, p]) => p)).toEqual(['/']);
  for (const [rule, path] of all.filter(([rule]) => rule === '--dev')) expect(path, rule).toMatch(/^\/dev\/(null|zero|full|random|urandom|tty)$/);
});

it('refuses an empty command', () => {
  expect(() => entry([])).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
});
