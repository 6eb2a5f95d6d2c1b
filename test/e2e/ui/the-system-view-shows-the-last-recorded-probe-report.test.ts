/**
 * The dashboard's System view (#21) shows the last `probe --all` report the
 * home recorded — when, on which provider, by which build, and the report
 * itself — without running anything; with none recorded it says how to make
 * one. Running doctor and the scenario list from the page stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser, screenshot } from '../../helpers/dashboard.js';
import { recordReport } from '../../helpers/probe-report.js';

const suite = dashboardInBrowser();

describe.skipIf(suite.missing !== '')(`the last probe report in the dashboard (${suite.missing || 'chromium present'})`, () => {
  it('says none was recorded, then shows the newest recorded report with its time, provider and build', async () => {
    const { page } = suite.browser;
    await page.goto(suite.ui.url);
    await page.getByTestId('workspace-count').waitFor();
    await page.getByRole('link', { name: 'System' }).click();
    await expect.poll(() => page.getByTestId('probe-last').textContent()).toContain('no `probe --all` has run on this home');

    recordReport(suite.home, {
      provider: 'native',
      outcome: '30 of 31 scenarios contained on native; 1 ESCAPED',
      findings: ['escaped: an-old-one'],
      version: '0.9.0',
    });
    recordReport(suite.home, {
      provider: 'native',
      outcome: '31 of 31 scenarios contained on native',
      findings: ['contained: pid-namespace — pid 1 is the job’s init'],
    });
    await page.reload();
    await page.getByTestId('probe-last-outcome').waitFor();
    expect(await page.getByTestId('probe-last-outcome').textContent()).toBe('31 of 31 scenarios contained on native');
    const facts = await page.getByTestId('probe-last').locator('table').first().textContent();
    expect(facts).toMatch(/^recorded\d{4}-\d\d-\d\dT[\d:.]+Zprovidernativebuildheadspace 0\.0\.0-test, node v\d+\.\d+\.\d+, \w+-\w+$/);
    await screenshot(page, 'system');
    await page.getByText('the whole report').click();
    expect(await page.getByTestId('probe-last').getByTestId('findings').textContent()).toBe('contained: pid-namespace — pid 1 is the job’s init');

    // The buttons still run their reports.
    await page.getByRole('button', { name: 'probe scenarios' }).click();
    await expect.poll(() => page.getByTestId('system-report').textContent()).toContain('scenario');
  }, 60_000);
});
