/**
 * The dashboard's newer views (#21) — the list's policy and storage cells,
 * batches, watch samples and the stored probe report — treat workspace
 * content as hostile like the others: a workspace label (purpose, owner),
 * a batch member's command and output, and text in a stored report, all
 * planted markup, show as the text they are; nothing runs.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser, PLANTED_IMG, PLANTED_SCRIPT, nothingRan } from '../../helpers/dashboard.js';
import { recordReport } from '../../helpers/probe-report.js';

const [SCRIPT, IMG] = [PLANTED_SCRIPT, PLANTED_IMG];
const BOLD = '<b>bold</b><i>it</i>';
let workspace: string;
let group: string;

const suite = dashboardInBrowser({
  seed: async (engine, home) => {
    workspace = (await engine.create({ purpose: `${BOLD} ${IMG}`, owner: SCRIPT })).provenance.workspace_id!;
    const result = await engine.batch({ strategy: 'all', jobs: [{ name: 'planted', workspace, command: ['echo', SCRIPT, IMG] }] });
    group = result.key_findings.find((f) => typeof f === 'object' && f.kind === 'batch')!.id as string;
    await engine.watch({ handle: workspace, forSeconds: 0.3, everySeconds: 0.1 });
    recordReport(home, { provider: 'native', outcome: `contained ${BOLD}`, findings: [`${SCRIPT} ${IMG}`] });
  },
});

describe.skipIf(suite.missing !== '')(`hostile content in the newer views (${suite.missing || 'chromium present'})`, () => {
  it('shows planted markup as text in the list, the batch views, the samples and the stored probe report', async () => {
    const { page } = suite.browser;
    await page.goto(suite.ui.url);
    await page.getByTestId('workspace-storage').filter({ hasText: 'B' }).waitFor();
    expect(await page.getByTestId('workspace-purpose').textContent()).toBe(`${BOLD} ${IMG}`);
    await nothingRan(suite.browser);

    await page.getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('link', { name: group }).click();
    await page.getByTestId('member-command').waitFor();
    expect(await page.getByTestId('member-command').textContent()).toBe(`echo ${SCRIPT} ${IMG}`);
    await page.getByText('the whole result package').click();
    expect(await page.getByTestId('evidence-excerpt').first().textContent()).toContain(`${SCRIPT} ${IMG}`);
    await nothingRan(suite.browser);

    await page.evaluate((id) => (location.hash = `#/ws/${encodeURIComponent(id)}`), workspace);
    await page.getByTestId('samples-summary').waitFor();
    expect(await page.getByTestId('workspace-id').textContent()).toBe(workspace);
    await nothingRan(suite.browser);

    await page.getByRole('link', { name: 'System' }).click();
    await page.getByTestId('probe-last-outcome').waitFor();
    expect(await page.getByTestId('probe-last-outcome').textContent()).toBe(`contained ${BOLD}`);
    await page.getByText('the whole report').click();
    expect(await page.getByTestId('probe-last').getByTestId('findings').textContent()).toBe(`${SCRIPT} ${IMG}`);
    await nothingRan(suite.browser);
  }, 60_000);
});
