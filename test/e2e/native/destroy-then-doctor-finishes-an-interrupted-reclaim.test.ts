/**
 * When the background reclaim of a destroyed workspace's storage dies before
 * it finishes (here: killed once it holds its lock, as a kill or a reboot
 * would), doctor names it as an interrupted reclaim, and `doctor --repair
 * --apply` finishes it: the folder, the image, its mount and its loop device
 * are gone, and nothing is left to repair.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';
import { loopDevicesUnder } from '../../../src/providers/native/workspace-filesystem.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native', HEADSPACE_POOL_SIZE: '0' };
afterAll(cleanup);

test.runIf(readiness.ownFilesystem)('destroy then doctor finishes an interrupted reclaim', async () => {
  expect(cli(home, ['create', '--workspace-id', 'reclaimed'], env).code).toBe(0);
  const destroy = cli(home, ['destroy', 'reclaimed', '--json'], { ...env, HEADSPACE_TEST_CRASH_AT: 'remove:in-reclaim' });
  expect(destroy.code, destroy.stderr).toBe(0);
  expect(destroy.stdout).toContain('reclaiming: storage');
  const dir = join(home, 'native', 'workspaces', 'reclaimed');
  // The reclaim journalled itself and died: its folder stays, with nobody working on it.
  expect(existsSync(join(dir, 'reclaim.json'))).toBe(true);

  let doctor = cli(home, ['doctor', '--provider', 'native', '--json'], env);
  for (let i = 0; i < 100 && !doctor.stdout.includes('an interrupted reclaim'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    doctor = cli(home, ['doctor', '--provider', 'native', '--json'], env);
  }
  expect(doctor.stdout).toContain('an interrupted reclaim: the storage of removed workspace reclaimed');

  const repair = cli(home, ['doctor', '--provider', 'native', '--repair', '--apply', '--json'], env);
  expect(repair.code, repair.stdout + repair.stderr).toBe(0);
  expect(existsSync(dir)).toBe(false);
  expect(loopDevicesUnder(join(home, 'native'))).toEqual([]);
  expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toMatch(/\/(fs|img)\/reclaimed /);
  expect(cli(home, ['doctor', '--provider', 'native', '--json'], env).stdout).not.toContain('reclaimed');
});
