/**
 * A `fork:` job whose parent is busy (a job runs in it, so its files are
 * moving) waits in the queue, as a run job on a busy workspace does, saying
 * which job it waits for; once the parent is free it is forked and runs. It
 * once failed with "no workspace ws-…", naming a fork that was never made.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { groupIdOf, memberLines, runBatch, type BatchPackage } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a fork job on a busy parent', () => {
  it('waits for the parent, naming the busy job, then runs in a fork that exists', async () => {
    expect(cli(home, ['create', '--workspace-id', 'parent']).code).toBe(0);
    const busy = JSON.parse(cli(home, ['run', '--detach', '--json', 'parent', 'block']).stdout) as { provenance: { job_id: string } };
    const blocker = busy.provenance.job_id;
    const started = runBatch(home, ['--strategy', 'all', '--detach'], [{ fork: 'parent', command: 'true', name: 'forked' }]);
    expect(started.code, started.stderr).toBe(0);
    const group = groupIdOf(started.pkg!);
    const line = () => memberLines(JSON.parse(cli(home, ['batch', 'status', group, '--json']).stdout) as BatchPackage)[0]!;
    // Each later look of the driver tries the launch again (the member reads launching for that moment, then queued again
    // with its reason): one reading must show it queued and waiting, status and text from the same look.
    let seen = line();
    for (let i = 0; i < 400 && !(seen.status === 'queued' && seen.text.includes('waiting')); i++) {
      await new Promise((r) => setTimeout(r, 25));
      seen = line();
    }
    expect(seen.status).toBe('queued');
    expect(seen.text).toContain(`waiting: workspace parent is busy: job ${blocker} is running`);

    expect(cli(home, ['stop', 'parent', '--apply']).code).toBe(5);
    const waited = cli(home, ['batch', 'wait', group, '--json']);
    expect(waited.code, waited.stdout).toBe(0);
    const done = memberLines(JSON.parse(waited.stdout) as BatchPackage)[0]!;
    expect(done.status).toBe('success');
    const fork = /in (ws-\S+), job/.exec(done.text)?.[1];
    expect(fork).toBeDefined();
    expect(cli(home, ['inspect', fork!]).code).toBe(0);
    expect(waited.stdout).not.toContain('WORKSPACE_NOT_FOUND');
  }, 60_000);
});
