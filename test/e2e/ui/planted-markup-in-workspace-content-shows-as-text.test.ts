/**
 * Everything from a workspace is hostile (#21): markup planted in a job's
 * output, a file name, an artifact's purpose and a workspace's purpose is
 * shown in the real browser as the text it is. No planted script runs, no
 * planted element exists, no dialog opens.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser, PLANTED_IMG, PLANTED_SCRIPT, nothingRan as checkNothingRan } from '../../helpers/dashboard.js';

const [SCRIPT, IMG] = [PLANTED_SCRIPT, PLANTED_IMG];
const FILE = '<img src=x onerror=alert(2)>.txt';
let workspace: string;
let job: string;

const suite = dashboardInBrowser({
  seed: async (engine) => {
    workspace = (await engine.create({ purpose: `${SCRIPT} ${IMG}`, owner: IMG })).provenance.workspace_id!;
    job = (await engine.run({ workspaceId: workspace, argv: ['echo', SCRIPT, IMG, '&&', 'write', FILE, SCRIPT] })).provenance.job_id!;
    await engine.declare({ workspaceId: workspace, name: FILE, purpose: `${IMG} ${SCRIPT}` });
  },
});

const nothingRan = () => checkNothingRan(suite.browser);

describe.skipIf(suite.missing !== '')(`hostile content in the dashboard (${suite.missing || 'chromium present'})`, () => {
  it('shows planted script and image markup as text in the list, the workspace and the job', async () => {
    const { page } = suite.browser;
    await page.goto(suite.ui.url);
    await page.getByTestId('workspace-purpose').waitFor();
    expect(await page.getByTestId('workspace-purpose').textContent()).toBe(`${SCRIPT} ${IMG}`);
    await nothingRan();

    await page.getByRole('link', { name: workspace }).click();
    await page.getByTestId('artifact-name').waitFor();
    expect(await page.getByTestId('artifact-name').textContent()).toBe(FILE);
    expect(await page.getByTestId('artifact-purpose').textContent()).toBe(`${IMG} ${SCRIPT}`);
    expect(await page.getByTestId('job-command').textContent()).toContain(SCRIPT);
    await nothingRan();

    await page.getByRole('link', { name: job }).click();
    await page.getByTestId('log-line').first().waitFor();
    expect(await page.getByTestId('log-line').first().textContent()).toBe(`1${SCRIPT} ${IMG}`);
    expect(await page.getByTestId('evidence-excerpt').first().textContent()).toContain(SCRIPT);
    await nothingRan();
  }, 60_000);
});
