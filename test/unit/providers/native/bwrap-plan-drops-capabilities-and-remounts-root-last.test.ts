/**
 * The bwrap plan carries every hardening flag the platform notes call for,
 * and orders them so they work: `--unshare-user` with `--disable-userns`,
 * `--cap-drop ALL` (root keeps CAP_SYS_ADMIN otherwise), the workspace bound
 * read-write at /workspace, and `--remount-ro /` as the very last argument.
 */
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { planBwrap, SANDBOX_WORKSPACE } from '../../../../src/providers/native/plan-bwrap.js';

const plan = () =>
  planBwrap({
    filesDir: '/state/workspaces/w1/files',
    policy: defaultPolicy(),
    exposures: [
      { kind: 'ro-bind', src: '/usr', dest: '/usr' },
      { kind: 'symlink', target: 'usr/bin', dest: '/bin' },
    ],
    cwd: 'src',
    env: {},
    seccompFd: 4,
    procMasks: [],
    resolvedHostPaths: {},
  });

const pairs = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

it('unshares every namespace, disables nested user namespaces and drops all capabilities', () => {
  const { args } = plan();
  for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session']) expect(args).toContain(flag);
  expect(pairs(args, '--cap-drop')).toEqual(['ALL']);
  expect(args).not.toContain('--share-net');
});

it('binds the workspace read-write at /workspace and starts the job in the requested directory', () => {
  const { args } = plan();
  const bind = args.indexOf('--bind');
  expect(args.slice(bind, bind + 3)).toEqual(['--bind', '/state/workspaces/w1/files', SANDBOX_WORKSPACE]);
  expect(pairs(args, '--chdir')).toEqual(['/workspace/src']);
  expect(pairs(args, '--seccomp')).toEqual(['4']);
});

it('caps /tmp with a size and remounts the root read-only last', () => {
  const { args } = plan();
  const tmp = args.indexOf('/tmp');
  expect(args.slice(tmp - 3, tmp)).toEqual(['--size', String(defaultPolicy().budget.memoryBytes), '--tmpfs']);
  expect(args.slice(-2)).toEqual(['--remount-ro', '/']);
});
