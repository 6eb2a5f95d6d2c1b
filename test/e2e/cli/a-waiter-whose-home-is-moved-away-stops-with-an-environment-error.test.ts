/**
 * A process that waits on the state store (wait, and a detached batch's
 * driver) holds the store's file open, and an open file outlives its name:
 * with HEADSPACE_HOME deleted or moved, it read the old file forever and
 * waited for an end nobody could record (two drivers outlived their test's
 * home this way). It now notices that the file it opened is no longer at its
 * path and stops with an environment error (exit 2) that says so.
 */
import { existsSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, sharedSupervisorsOf } from '../../helpers/cli.js';
import { groupIdOf, hostProcesses, memberLines, runBatch, type BatchPackage } from '../../helpers/batch.js';

// A home per case: the first leaves its shared supervisor running a job in a home that was moved and put back, and
// the second once failed beside it with its wait already gone (CI, session 17), so neither sees the other's processes.
const homes = [makeHome(), makeHome()];
afterAll(async () => {
  for (const { home, cleanup } of homes) {
    if (existsSync(`${home}-moved`)) {
      if (existsSync(home)) rmSync(home);
      renameSync(`${home}-moved`, home);
    }
    await cleanup();
  }
});

/**
 * Has the `wait JOB` process opened the home's store: state.db and its shared memory, which SQLite opens last? The
 * database alone was not enough: the store reads the file's header through a descriptor of its own just before
 * opening it, and a home moved in that moment, or before the WAL's files were opened, failed the open itself
 * ("cannot open the state store", seen once in 90 runs) instead of a waiter's look.
 */
const holdsTheStore = (home: string, job: string) =>
  hostProcesses((argv) => argv.includes('wait') && argv.includes(job)).some((pid) => {
    try {
      const open = new Set(readdirSync(`/proc/${pid}/fd`).map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`)));
      return open.has(`${home}/state.db`) && open.has(`${home}/state.db-shm`);
    } catch {
      return false;
    }
  });

describe('a waiter whose home is moved away', () => {
  it('stops with an environment error instead of waiting forever', async () => {
    const home = homes[0]!.home;
    const moved = `${home}-moved`;
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const started = runBatch(home, ['--strategy', 'all', '--detach'], [{ workspace: 'w', command: 'sleep 60', name: 'long' }]);
    expect(started.code, started.stderr).toBe(0);
    const group = groupIdOf(started.pkg!);
    const status = () => JSON.parse(cli(home, ['batch', 'status', group, '--json']).stdout) as BatchPackage;
    for (let i = 0; i < 200 && memberLines(status())[0]!.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 25));
    const job = memberLines(status())[0]!.id!;
    const driver = hostProcesses((argv) => argv.includes('batch') && argv.includes('wait') && argv.includes(group));
    expect(driver).toHaveLength(1);

    const waiting = cliAsync(home, ['wait', job, '--timeout', '50']);
    // Moved only once the wait holds the store open (a wait started after the move would open a fresh home).
    for (let i = 0; i < 500 && !holdsTheStore(home, job); i++) await new Promise((r) => setTimeout(r, 20));
    // A wait that ended already is shown with what it said (it once did, and nothing of it was printed).
    if (!holdsTheStore(home, job)) expect(await waiting).toBe('a wait still holding the store');
    renameSync(home, moved);
    const waited = await waiting;
    expect(waited.code, `${waited.stdout}\n${waited.stderr}`).toBe(2);
    expect(waited.stderr).toContain(`the state store this process opened is no longer at ${home}/state.db`);
    // The detached driver stops the same way (it has no stdio: it is gone, long before its batch could end).
    for (let i = 0; i < 250 && existsSync(`/proc/${driver[0]}`); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(`/proc/${driver[0]}`)).toBe(false);
    // The supervisor still runs the job in the moved home; put it back so cleanup can stop both.
    renameSync(moved, home);
    expect(sharedSupervisorsOf(home)).toHaveLength(1);
  }, 60_000);

  it('says the same when a file stands where the home was, not that the job died or that headspace broke', async () => {
    const home = homes[1]!.home;
    const moved = `${home}-moved`;
    expect(cli(home, ['create', '--workspace-id', 'v']).code).toBe(0);
    const run = cli(home, ['run', '--detach', '--json', 'v', 'sleep', '60']);
    expect(run.code, run.stderr).toBe(0);
    const job = (JSON.parse(run.stdout) as { provenance: { job_id: string } }).provenance.job_id;
    const waiting = cliAsync(home, ['wait', job, '--timeout', '50']);
    for (let i = 0; i < 500 && !holdsTheStore(home, job); i++) await new Promise((r) => setTimeout(r, 20));
    // A wait that ended already is shown with what it said (it once did, and nothing of it was printed).
    if (!holdsTheStore(home, job)) expect(await waiting).toBe('a wait still holding the store');
    renameSync(home, moved);
    // A stat of <file>/state.db fails with ENOTDIR, not ENOENT: it once escaped as an internal error (exit 7), or the
    // supervisor's end (it refuses such a home) was reported first as the job's process dying.
    writeFileSync(home, '');
    try {
      const waited = await waiting;
      expect(waited.code, `${waited.stdout}\n${waited.stderr}`).toBe(2);
      expect(waited.stderr).toContain(`the state store this process opened is no longer at ${home}/state.db`);
    } finally {
      rmSync(home);
      renameSync(moved, home);
    }
  }, 60_000);
});
