/**
 * `headspace batch ls` lists a home's batches, newest first, one line each
 * (group id, running or the status it finished with, the join, the job
 * count): a detached batch whose group id scrolled away is found again
 * without the dashboard. --limit shows the newest N and says how many were
 * left out; the list drives and stops nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { groupIdOf, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface ListedBatch {
  kind: string;
  text: string;
  group_id: string;
  strategy: string;
  quorum?: number;
  state: string;
  status?: string;
  members: number;
}
interface Listing {
  outcome_summary: string;
  key_findings: ListedBatch[];
  attention: Array<{ text: string; action?: { verb: string; args: Record<string, unknown> } }>;
}

const listing = (args: string[] = []): Listing => {
  const run = cli(home, ['batch', 'ls', '--json', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Listing;
};

describe('batch ls', () => {
  it('says there are none on a home that never ran one', () => {
    expect(listing().outcome_summary).toBe('no batches');
  });

  it('lists each batch newest first with its state, status, join and job count', () => {
    expect(cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '2']).code).toBe(0);
    const race = runBatch(home, ['--strategy', 'race'], [{ workspace: 'pool', command: 'true' }]);
    expect(race.code, race.stderr).toBe(0);
    const quorum = runBatch(
      home,
      ['--strategy', 'quorum', '--quorum', '1'],
      [
        { workspace: 'pool', command: 'false' },
        { workspace: 'pool', command: 'true' },
      ],
    );
    expect(quorum.code, quorum.stderr).toBe(0);

    const all = listing();
    expect(all.outcome_summary).toBe('2 batch(es)');
    expect(all.key_findings.map((b) => b.group_id)).toEqual([groupIdOf(quorum.pkg!), groupIdOf(race.pkg!)]);
    expect(all.key_findings[0]).toMatchObject({ kind: 'batch', strategy: 'quorum', quorum: 1, state: 'finished', status: 'success', members: 2 });
    expect(all.key_findings[1]).toMatchObject({ kind: 'batch', strategy: 'race', state: 'finished', status: 'success', members: 1 });
    expect(all.attention.some((a) => a.action?.verb === 'batch-status' && a.action.args.groupId === groupIdOf(quorum.pkg!))).toBe(true);

    const markdown = cli(home, ['batch', 'ls']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(`${groupIdOf(race.pkg!)}: finished success (race, 1 job(s))`);
    expect(markdown.stdout).toContain(`headspace batch status ${groupIdOf(quorum.pkg!)}`);
  });

  it('shows the newest N under --limit and says how many it left out', () => {
    const one = listing(['--limit', '1']);
    expect(one.outcome_summary).toBe('2 batch(es); the newest 1 shown');
    expect(one.key_findings).toHaveLength(1);
    expect(one.attention.some((a) => a.text.startsWith('1 older batch(es) are left out') && a.action?.verb === 'batch-ls')).toBe(true);
  });

  it('refuses a limit outside 1 to 1000 with exit 1', () => {
    for (const limit of ['0', '1001', 'many']) {
      const run = cli(home, ['batch', 'ls', '--limit', limit]);
      expect(run.code, `--limit ${limit}`).toBe(1);
      expect(run.stderr).toMatch(/limit/);
    }
  });
});
