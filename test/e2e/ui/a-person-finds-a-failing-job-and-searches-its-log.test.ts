/**
 * The dashboard in a real headless Chromium (#21): the list of workspaces,
 * a workspace with its jobs, a failing job with its result package, and its
 * log read a page at a time and searched (RE2, in the engine) without the
 * whole log ever reaching the browser. Screenshots of the three views.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser, screenshot } from '../../helpers/dashboard.js';

let failing: string;
let nightly: string;

const suite = dashboardInBrowser({
  seed: async (engine) => {
    nightly = (await engine.create({ purpose: 'nightly checksum run', owner: 'data-team', ttlSeconds: 7200 })).provenance.workspace_id!;
    await engine.run({ workspaceId: nightly, argv: ['echo', 'warming', 'up'] });
    // 403 lines: a trace with an ERROR at step 250 (402 lines), then a failing step (1).
    failing = (await engine.run({ workspaceId: nightly, argv: ['trace', '400', '250', '&&', 'fail', '3'] })).provenance.job_id!;
    await engine.create({ purpose: 'scratch', owner: 'alice' });
  },
});

describe.skipIf(suite.missing !== '')(`the dashboard (${suite.missing || 'chromium present'})`, () => {
  it('lists the workspaces, opens one, opens its failing job and pages and searches its log', async () => {
    const { page } = suite.browser;
    const { ui } = suite;
    await page.goto(ui.url);
    // The token left the address bar once taken.
    await expect.poll(() => page.url()).not.toContain('token=');
    await page.getByTestId('workspace-row').first().waitFor();
    expect(await page.getByTestId('workspace-row').count()).toBe(2);
    expect(await page.getByTestId('workspace-count').textContent()).toBe('1–2 of 2');
    expect(await page.getByTestId('workspaces').textContent()).toContain('nightly checksum run');
    await screenshot(page, 'workspaces');

    await page.getByRole('link', { name: nightly }).click();
    await page.getByTestId('job-row').nth(1).waitFor();
    expect(await page.getByTestId('workspace-id').textContent()).toBe(nightly);
    const failingRow = page.getByTestId('job-row').filter({ hasText: failing });
    expect(await failingRow.textContent()).toContain('failure');
    expect(await page.getByTestId('policy').textContent()).toContain('simulated');
    await screenshot(page, 'workspace');

    await page.getByRole('link', { name: failing }).click();
    const outcome = page.getByTestId('result-package').getByTestId('outcome');
    await outcome.waitFor();
    expect(await outcome.textContent()).toContain('failed with exit status 3');
    // The nine sections, in order.
    const headings = await page.getByTestId('result-package').locator('h3').allTextContents();
    expect(headings).toEqual(['Outcome summary', 'Status', 'Key findings', 'Evidence', 'Artifacts', 'Warnings', 'Resource usage', 'Provenance', 'Attention']);
    await screenshot(page, 'job');

    // The log comes a page (200 lines) at a time.
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(200);
    expect(await page.getByTestId('log-status').textContent()).toBe('200 of 403 line(s) shown');
    await page.getByTestId('log-more').click();
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(400);
    await page.getByTestId('log-more').click();
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(403);
    expect(await page.getByTestId('log-more').isHidden()).toBe(true);

    // A search: one match, with its line number.
    await page.getByTestId('log-search').fill('ERROR: checksum');
    await page.getByTestId('log-search-go').click();
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(1);
    expect(await page.getByTestId('log-line').textContent()).toBe('251ERROR: checksum drift at step 250');

    // A search with more matches than a page: paged too.
    await page.getByTestId('log-search').fill('step=000[0-2]');
    await page.getByTestId('log-search').press('Enter');
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(200);
    expect(await page.getByTestId('log-status').textContent()).toContain('more on the next page');
    await page.getByTestId('log-more').click();
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(300);
    expect(await page.getByTestId('log-line').last().textContent()).toMatch(/^301trace step=000299 /);
    expect(await page.getByTestId('log-more').isHidden()).toBe(true);

    await page.getByTestId('log-search').fill('step=0001');
    await page.getByTestId('log-search-go').click();
    await expect.poll(() => page.getByTestId('log-line').count()).toBe(100);
    await page.getByTestId('log-search').scrollIntoViewIfNeeded();
    await screenshot(page, 'job-log-search');
  }, 60_000);
});
