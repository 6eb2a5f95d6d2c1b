/**
 * The fake provider declares only a `simulated` layer: it isolates nothing,
 * so every probe would be meaningless. probe refuses it (POLICY_DENIED,
 * exit 3) before creating anything; --list still works without a provider.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('probe on the fake provider', () => {
  it('is refused before any workspace exists', async () => {
    t = makeTestEngine();
    await expect(t.engine.probe({ all: true })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      action: { verb: 'probe', args: { all: true, provider: 'native' } },
    });
    const listed = await t.engine.ls({ all: true });
    expect(listed.outcome_summary).toMatch(/no workspaces|0 workspaces/);
  });

  it('still lists the scenarios', async () => {
    t = makeTestEngine();
    const listed = await t.engine.probe({ list: true });
    expect(listed.status).toBe('success');
    expect(listed.key_findings[0]).toMatch(/^write-outside — /);
  });
});
