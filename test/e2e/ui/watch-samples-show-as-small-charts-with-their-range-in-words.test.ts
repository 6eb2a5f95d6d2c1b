/**
 * A job's `watch` samples (#21), as watch recorded them in the home, show in
 * its dashboard view as a small chart per figure, each with its range in
 * words beside it and every sample as a row of text (the textual fallback);
 * a workspace's view gathers the samples of its jobs. Where nothing was
 * watched the view says how to record some.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser, screenshot } from '../../helpers/dashboard.js';

let watched: string;
let workspace: string;
let unwatched: string;
let samples = 0;

const suite = dashboardInBrowser({
  seed: async (engine) => {
    workspace = (await engine.create({ purpose: 'watched' })).provenance.workspace_id!;
    // Writes 5 bytes, then 10 more 1 s later, and runs on 1.5 s: storage and output move while it is watched.
    const argv = [
      'write',
      'a.txt',
      'first',
      '&&',
      'echo',
      'one',
      '&&',
      'sleep',
      '1',
      '&&',
      'write',
      'b.txt',
      'second one',
      '&&',
      'echo',
      'two',
      '&&',
      'sleep',
      '1.5',
    ];
    watched = (await engine.run({ workspaceId: workspace, argv, detach: true })).provenance.job_id!;
    // The watch starts once the job has (its supervisor may take seconds to start on a loaded machine, and CI once saw
    // the job still running, its workspace busy, after a watch that began before it).
    for (const deadline = Date.now() + 30_000; !JSON.stringify(await engine.logs({ jobId: watched })).includes('one');) {
      if (Date.now() > deadline) throw new Error(`job ${watched} printed nothing in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const report = await engine.watch({ handle: watched, forSeconds: 2.5, everySeconds: 0.25 });
    samples = Number(/^(\d+) sample/.exec(report.key_findings[0] as string)![1]);
    await engine.wait({ jobIds: watched, timeoutSeconds: 30 });
    unwatched = (await engine.run({ workspaceId: workspace, argv: ['echo', 'quiet'] })).provenance.job_id!;
  },
});

describe.skipIf(suite.missing !== '')(`watch samples in the dashboard (${suite.missing || 'chromium present'})`, () => {
  it('draws a chart per figure from the recorded samples, with the range and every sample as text', async () => {
    const { page } = suite.browser;
    await page.goto(suite.ui.url);
    await page.getByTestId('workspace-count').waitFor();
    await page.evaluate((id) => (location.hash = `#/job/${encodeURIComponent(id)}`), watched);
    await page.getByTestId('samples-summary').waitFor();
    expect(await page.getByTestId('samples-summary').textContent()).toMatch(new RegExp(`^${samples} sample\\(s\\) from 1 watch\\(es\\)`));
    expect(await page.getByTestId('sample-row').count()).toBe(samples);
    const storage = page.getByTestId('sample-figure').filter({ hasText: 'storage' });
    expect(await storage.getByTestId('sample-range').textContent()).toMatch(/^\d+ B – 15 B, last 15 B$/);
    expect(await storage.locator('svg[role="img"] polyline').count()).toBe(1);
    expect(await storage.locator('svg').getAttribute('aria-label')).toMatch(/^storage: .*last 15 B$/);
    await page.getByTestId('samples').scrollIntoViewIfNeeded();
    await screenshot(page, 'job-samples');

    // The workspace's view gathers its jobs' samples.
    await page.getByRole('link', { name: workspace }).click();
    // The job view's own summary stays found until the workspace view replaces it (CI once counted 0 rows in between):
    // wait for the workspace view, then for its samples, which it reads after it first draws.
    await page.getByTestId('workspace-id').filter({ hasText: workspace }).waitFor();
    await expect.poll(() => page.getByTestId('sample-row').count(), { timeout: 15_000 }).toBe(samples);

    await page.evaluate((id) => (location.hash = `#/job/${encodeURIComponent(id)}`), unwatched);
    await page.getByTestId('no-samples').waitFor();
    expect(await page.getByTestId('no-samples').textContent()).toContain(`headspace watch ${unwatched} --for 60`);
  }, 60_000);
});
