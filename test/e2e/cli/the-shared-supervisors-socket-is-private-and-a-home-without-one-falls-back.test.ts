/**
 * The shared supervisor's socket is reachable by its user only (#15): Node
 * cannot ask a unix socket's peer who it is (no SO_PEERCRED), so the socket
 * is 0600 inside a 0700 directory of the user's, and a caller hands a job's
 * env values only to a socket in such a directory. Where the directory is
 * not private (here: opened to everyone), the caller does not use it and
 * falls back to a supervisor of the job's own, which the run's attention
 * names; the job still ends as in the foreground.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome, sharedSupervisorsOf } from '../../helpers/cli.js';
import { jsonOf } from '../../helpers/detached.js';

const env = { HEADSPACE_PROVIDER: 'fake', HEADSPACE_SUPERVISOR_IDLE_MS: '10000' };
const homes = [makeHome(), makeHome()];
afterAll(async () => {
  for (const h of homes) await h.cleanup();
});

function detachAndWait(home: string, jobId: string): string {
  expect(cli(home, ['create', '--workspace-id', 'p'], env).code).toBe(0);
  const run = cli(home, ['run', '--detach', '--json', '--job-id', jobId, 'p', 'echo', 'private'], env);
  expect(run.code, run.stderr).toBe(0);
  const waited = cli(home, ['wait', '--json', jobId], env);
  expect(waited.code, waited.stderr).toBe(0);
  expect(jsonOf(waited.stdout).evidence[0]?.excerpt).toBe('private\n');
  return jsonOf(run.stdout).attention[0]!.text;
}

describe("the shared supervisor's socket", () => {
  it('is 0600 in a 0700 directory, and the run names the shared supervisor', () => {
    const { home } = homes[0]!;
    expect(detachAndWait(home, 'priv-1')).toContain("the home's shared supervisor");
    expect(sharedSupervisorsOf(home)).toHaveLength(1);
    expect(statSync(join(home, 'supervisor')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'supervisor', 'sock')).mode & 0o777).toBe(0o600);
  });

  it('is not used in a directory others may enter: the job gets a supervisor of its own', () => {
    const { home } = homes[1]!;
    mkdirSync(join(home, 'supervisor'), { mode: 0o700 });
    chmodSync(join(home, 'supervisor'), 0o777);
    expect(detachAndWait(home, 'open-1')).toContain('a supervisor of its own');
    expect(sharedSupervisorsOf(home)).toEqual([]);
  });
});
