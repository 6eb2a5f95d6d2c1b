/**
 * Workspaces carry purpose, owner and an optional TTL; gc marks those past
 * their expiry expired and destroys them, reporting each, and leaves the
 * others alone. One it had to keep (an artifact never exported) is counted
 * as kept in the summary, and its way out is an attention item, not only a
 * warning (a new user read "0 destroyed" beside "marked expired").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { findingTexts } from '../../../helpers/result-packages.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('gc', () => {
  it('expires and destroys only workspaces past their TTL', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'short', ttlSeconds: 60, purpose: 'scratch', owner: 'agent-7' });
    await t.engine.create({ workspaceId: 'long', ttlSeconds: 3600 });
    await t.engine.create({ workspaceId: 'forever' });
    t.clock.advance(120_000);
    const listed = await t.engine.ls();
    expect(findingTexts(listed).find((f) => f.startsWith('short:'))).toMatch(/purpose: scratch, owner: agent-7, expired/);
    const pkg = await t.engine.gc();
    expect(pkg.key_findings).toEqual(['workspace short marked expired', expect.stringMatching(/^workspace short destroyed/)]);
    const all = await t.engine.ls({ all: true });
    expect(findingTexts(all).find((f) => f.startsWith('short:'))).toContain('destroyed');
    expect(findingTexts(all).find((f) => f.startsWith('long:'))).toContain('ready');
    const inspect = await t.engine.inspect({ handle: 'long' }).catch((e: unknown) => e);
    expect(inspect).toMatchObject({ status: 'success' });
  });

  it('counts a workspace it kept and names the way out as attention', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'precious', ttlSeconds: 4 });
    await t.engine.run({ workspaceId: 'precious', argv: ['write', 'result.txt', '42'], declares: [{ name: 'result.txt', purpose: 'the answer' }] });
    t.clock.advance(5_000);
    const pkg = await t.engine.gc();
    expect(pkg.outcome_summary).toBe('gc destroyed 0 expired workspace(s); marked 1 expired; left 1 (see attention)');
    const kept = pkg.attention.find((a) => a.kind === 'expired' && a.workspace_id === 'precious');
    expect(kept?.text).toMatch(/^workspace precious expired and was kept: /);
    expect(kept?.action).toBeDefined();
    expect(pkg.warnings).toEqual([]);
  });
});
