/**
 * Each row of the dashboard's workspace list (#21) shows the policy as the
 * workspace view labels it — the network limit with its label, whether
 * secrets at egress are possible (an allow-list), how many limits are
 * enforced, measured or simulated — and the storage the workspace uses, as
 * its provider measures it, filled in once the rows are shown.
 */
import { describe, expect, it } from 'vitest';
import { dashboardInBrowser } from '../../helpers/dashboard.js';

let plain: string;
let allowed: string;
/** The workspace view's policy table, counted by label in its order: '6 simulated3 enforced'. */
let plainCounts: string;

const suite = dashboardInBrowser({
  seed: async (engine) => {
    plain = (await engine.create({ purpose: 'plain' })).provenance.workspace_id!;
    await engine.run({ workspaceId: plain, argv: ['write', 'eleven.txt', 'hello world'] });
    const counts = new Map<string, number>();
    for (const limit of (await engine.inspect({ handle: plain })).provenance.policy_summary) counts.set(limit.label, (counts.get(limit.label) ?? 0) + 1);
    plainCounts = [...counts].map(([label, n]) => `${n} ${label}`).join('');
    allowed = (await engine.create({ purpose: 'allow-listed', network: 'allow=api.example.com' })).provenance.workspace_id!;
  },
});

describe.skipIf(suite.missing !== '')(`policy labels and storage in the list (${suite.missing || 'chromium present'})`, () => {
  it("shows each row's network label, secrets, limit labels and measured storage", async () => {
    const { page } = suite.browser;
    await page.goto(suite.ui.url);
    const row = (id: string) => page.getByTestId('workspace-row').filter({ hasText: id });
    await row(plain).waitFor();
    expect(await row(plain).getByTestId('workspace-network').textContent()).toBe('disabled simulated');
    expect(await row(plain).getByTestId('workspace-secrets').textContent()).toBe('—');
    // The fake provider simulates the limits a real one would enforce; the engine's own (wall clock, output, concurrency) are enforced.
    expect(plainCounts).toMatch(/simulated.*enforced/);
    expect(await row(plain).getByTestId('workspace-limits').textContent()).toBe(plainCounts);
    await expect.poll(() => row(plain).getByTestId('workspace-storage').textContent()).toBe('11 B');

    expect(await row(allowed).getByTestId('workspace-network').textContent()).toMatch(/^allow-list sha256:[0-9a-f]+.*simulated$/);
    expect(await row(allowed).getByTestId('workspace-secrets').textContent()).toBe('at egress');
    await expect.poll(() => row(allowed).getByTestId('workspace-storage').textContent()).toBe('0 B');
  }, 60_000);
});
