/**
 * Workspaces carry purpose, owner and an optional TTL; gc marks those past
 * their expiry expired and destroys them, reporting each, and leaves the
 * others alone.
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
});
