/**
 * Destroy on native returns once the workspace is unreachable and reports its
 * storage as reclaiming, not removed; the background reclaim then deletes the
 * folder and the image, unmounts the image and frees its loop device, doctor
 * never lists a reclaim under way, and the id can be used again at once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';
import { loopDevicesUnder } from '../../../src/providers/native/workspace-filesystem.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(cleanup);

const mountsOf = (id: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.split(' ')[4]?.endsWith(`/${id}`));

test.runIf(readiness.ownFilesystem)('storage ends up reclaimed after destroy', async () => {
  expect(cli(home, ['create', '--workspace-id', 'gone-soon'], env).code).toBe(0);
  expect(cli(home, ['run', 'gone-soon', 'sh', '-c', 'head -c 1000000 /dev/zero > data'], env).code).toBe(0);
  const destroy = cli(home, ['destroy', 'gone-soon'], env);
  expect(destroy.code, destroy.stderr).toBe(0);
  expect(destroy.stdout).toContain('removed: runtime');
  expect(destroy.stdout).toContain('reclaiming: storage');
  // Nothing a job binds is left mounted when destroy returns.
  expect(mountsOf('gone-soon').filter((line) => line.includes('/fs/gone-soon'))).toEqual([]);
  expect(cli(home, ['doctor', '--provider', 'native'], env).stdout).not.toMatch(/leftover.*gone-soon/);

  const dir = join(home, 'native', 'workspaces', 'gone-soon');
  const deadline = Date.now() + 30_000;
  while ((existsSync(dir) || mountsOf('gone-soon').length > 0 || loopDevicesUnder(join(home, 'native')).length > 0) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(existsSync(dir)).toBe(false);
  expect(mountsOf('gone-soon')).toEqual([]);
  expect(loopDevicesUnder(join(home, 'native'))).toEqual([]);

  // The same id again, at once after a destroy: create waits for the reclaim if it is still under way.
  expect(cli(home, ['create', '--workspace-id', 'gone-soon'], env).code).toBe(0);
  const again = cli(home, ['destroy', 'gone-soon'], env);
  expect(again.code).toBe(0);
  expect(cli(home, ['create', '--workspace-id', 'gone-soon'], env).code).toBe(0);
  expect(cli(home, ['destroy', 'gone-soon'], env).code).toBe(0);
});
