/**
 * With --allow-actions (#21): a running job's output and state move in the
 * page without a reload, and its stop button, once the person confirms,
 * stops it through the engine: the job reads cancelled, and the journal
 * records the stop as the dashboard's (intents.actor = 'ui').
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../src/api/index.js';
import { dashboardInBrowser, screenshot } from '../../helpers/dashboard.js';

const suite = dashboardInBrowser({ args: ['--allow-actions'] });
let workspace: string;
let job: string;

/** Started once the page can watch: it prints a line, a second one 8 s later, then runs until stopped. */
async function startJob(): Promise<void> {
  const engine = createHeadspace({ home: suite.home, defaultProvider: 'fake' });
  try {
    workspace = (await engine.create({ purpose: 'a long job' })).provenance.workspace_id!;
    // Detached: the home's supervisor runs it, another process than the page's server.
    const argv = ['echo', 'first', '&&', 'sleep', '8', '&&', 'echo', 'second', '&&', 'block'];
    job = (await engine.run({ workspaceId: workspace, argv, detach: true })).provenance.job_id!;
  } finally {
    engine.close();
  }
}

describe.skipIf(suite.missing !== '')(`a running job in the dashboard (${suite.missing || 'chromium present'})`, () => {
  it("follows the job's output live and stops it after confirmation, journalled as the ui's", async () => {
    const { page, dialogs } = suite.browser;
    await page.goto(suite.ui.url);
    await page.getByTestId('workspace-count').waitFor();
    await startJob();
    await page.evaluate((id) => (location.hash = `#/job/${encodeURIComponent(id)}`), job);
    await page.getByTestId('live').waitFor();
    await expect.poll(() => page.getByTestId('log-lines').textContent(), { timeout: 15_000 }).toContain('first');
    expect(await page.getByTestId('log-lines').textContent()).not.toContain('second');
    // The second line arrives while the page stays loaded: no navigation, only the live refresh.
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    await expect.poll(() => page.getByTestId('log-lines').textContent(), { timeout: 20_000 }).toContain('second');
    expect(loads).toEqual([]);
    await screenshot(page, 'running-job');

    await page.getByTestId('stop').click();
    await expect.poll(() => page.getByTestId('result-package').getByTestId('outcome').textContent(), { timeout: 20_000 }).toContain('cancelled');
    expect(dialogs).toEqual([`confirm: Stop job ${job}? It ends as cancelled.`]);
    expect(await page.getByTestId('live').count()).toBe(0);

    const db = new Database(join(suite.home, 'state.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT op, job_id, actor FROM intents WHERE op = 'stop'").all();
      expect(rows).toEqual([{ op: 'stop', job_id: job, actor: 'ui' }]);
    } finally {
      db.close();
    }
  }, 60_000);
});
