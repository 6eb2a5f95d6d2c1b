/**
 * A batch whose driving process is killed (kill -9) mid-way (#16) is not
 * lost and nothing is silently re-run: batch status and doctor name the dead driver,
 * the next batch wait adopts the batch and finishes it, the job already
 * started is watched to its end (the same job, one record) and only the
 * queued one is started.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { groupIdOf, hostProcesses, memberLines, runBatch, type BatchPackage } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

/** The detached driver: `headspace batch wait GROUP`. */
const driverPid = (group: string): number | undefined => hostProcesses((argv) => argv.includes('batch') && argv.includes('wait') && argv.includes(group))[0];

const status = (group: string) => JSON.parse(cli(home, ['batch', 'status', group, '--json']).stdout) as BatchPackage;

describe('a batch whose driver died', () => {
  it('is reported, then finished by batch wait with the started job watched, not run again', async () => {
    expect(cli(home, ['create', '--workspace-id', 'pool']).code).toBe(0);
    const started = runBatch(
      home,
      ['--strategy', 'all', '--detach'],
      [
        { workspace: 'pool', command: 'sleep 1.5', name: 'first' },
        { workspace: 'pool', command: 'true', name: 'second' },
      ],
    );
    expect(started.code, started.stderr).toBe(0);
    const group = groupIdOf(started.pkg!);
    let first: string | undefined;
    for (let i = 0; i < 200 && first === undefined; i++) {
      const line = memberLines(status(group)).find((l) => l.text.startsWith('first') && l.status === 'running');
      first = line?.id;
      if (first === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(first).toBeDefined();
    const pid = driverPid(group);
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    // Gone means reaped (a zombie still has its /proc entry and start time), which the host's init does in its own time.
    for (let i = 0; i < 500 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 20));

    const orphan = cli(home, ['batch', 'status', group]);
    expect(orphan.stdout).toContain('no live process drives this batch');
    const doctor = cli(home, ['doctor']);
    expect(doctor.stdout).toContain(`batch ${group} (all) has no live driver (pid ${pid} is gone)`);

    const waited = cli(home, ['batch', 'wait', group, '--json']);
    expect(waited.code, waited.stderr).toBe(0);
    const done = JSON.parse(waited.stdout) as BatchPackage;
    expect(done.outcome_summary).toMatch(/was gone: this call finished the batch/);
    const lines = memberLines(done);
    expect(lines.map((l) => l.status)).toEqual(['success', 'success']);
    expect(lines[0]!.id).toBe(first);
    const inspect = cli(home, ['inspect', 'pool']).stdout;
    expect(inspect).toContain('2 job(s)');
  }, 60_000);
});
