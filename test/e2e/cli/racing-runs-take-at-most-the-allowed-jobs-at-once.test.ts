/**
 * The jobs-at-once count is taken atomically (#12 item 8): five `run`
 * processes started together against a workspace created with
 * --concurrency 2 leave exactly two jobs running; the other three are
 * refused busy (exit 2), never a third job sneaking in between a count and
 * its insert (the store counts inside its IMMEDIATE transaction).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, type CliRun } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('runs racing for two slots', () => {
  it('start exactly two jobs and refuse the rest busy', async () => {
    expect(cli(home, ['create', '--workspace-id', 'race', '--concurrency', '2']).code).toBe(0);
    const settled: CliRun[] = [];
    const runs = Array.from({ length: 5 }, (_, i) => cliAsync(home, ['run', '--job-id', `job-${i}`, 'race', 'block']).then((r) => (settled.push(r), r)));
    // The three refused exit on their own; the two admitted block until stopped.
    const deadline = Date.now() + 60_000;
    while (settled.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(settled.map((r) => r.code)).toEqual([2, 2, 2]);
    for (const refused of settled) expect(refused.stderr).toMatch(/is busy: jobs job-\d, job-\d are running/);
    const preview = JSON.parse(cli(home, ['stop', 'race', '--json']).stdout) as { outcome_summary: string };
    expect(preview.outcome_summary).toMatch(/^jobs job-\d, job-\d are running in workspace race/);

    expect(cli(home, ['stop', 'race', '--apply', '--grace-seconds', '0']).code).toBe(5);
    const all = await Promise.all(runs);
    expect(all.map((r) => r.code).sort()).toEqual([2, 2, 2, 5, 5]);
  }, 90_000);
});
