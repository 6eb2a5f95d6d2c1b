/**
 * The dashboard lists the home's batches (#21) and shows one with its
 * strategy, its outcome and each member's status and exit, each member
 * linked to its job and its workspace; read-only, as batch status is.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser, screenshot } from '../../helpers/dashboard.js';

let workspace: string;
let group: string;

const suite = dashboardInBrowser({
  seed: async (engine) => {
    workspace = (await engine.create({ purpose: 'batch host' })).provenance.workspace_id!;
    const jobs = [
      { name: 'lint', workspace, command: ['echo', 'lint', 'clean'] },
      { name: 'tests', workspace, command: ['fail', '2'] },
    ];
    const result = await engine.batch({ strategy: 'allSettled', jobs });
    group = result.key_findings.find((f) => typeof f === 'object' && f.kind === 'batch')!.id as string;
  },
});

describe.skipIf(suite.missing !== '')(`batches in the dashboard (${suite.missing || 'chromium present'})`, () => {
  it('lists the batch, opens it with its strategy, members and outcome, and follows a member to its job', async () => {
    const { page } = suite.browser;
    await page.goto(suite.ui.url);
    await page.getByTestId('workspace-count').waitFor();
    await page.getByRole('link', { name: 'Batches' }).click();
    await page.getByTestId('batch-row').waitFor();
    expect(await page.getByTestId('batch-count').textContent()).toBe('1 of 1, newest first');
    expect(await page.getByTestId('batch-row').textContent()).toMatch(new RegExp(`^${group}allSettled2failure`));
    await screenshot(page, 'batches');

    await page.getByRole('link', { name: group }).click();
    await page.getByTestId('member-row').nth(1).waitFor();
    expect(await page.getByTestId('batch-strategy').textContent()).toBe('allSettled');
    expect(await page.getByTestId('outcome').first().textContent()).toContain('1 of 2 jobs did not succeed');
    const tests = page.getByTestId('member-row').filter({ hasText: 'tests' });
    expect(await tests.textContent()).toContain('failure');
    expect(await tests.getByTestId('member-command').textContent()).toBe('fail 2');
    expect(await page.getByTestId('member-row').filter({ hasText: 'lint' }).textContent()).toContain('success');
    await screenshot(page, 'batch');

    const jobLink = tests.locator('a[href^="#/job/"]');
    const jobId = (await jobLink.textContent())!;
    await jobLink.click();
    await expect.poll(() => page.getByTestId('job-id').textContent()).toBe(jobId);
    expect(await page.getByTestId('result-package').getByTestId('outcome').textContent()).toContain('failed with exit status 2');
    await page.goBack();
    await tests.waitFor();
    expect(await tests.locator(`a[href="#/ws/${workspace}"]`).count()).toBe(1);
  }, 60_000);
});
