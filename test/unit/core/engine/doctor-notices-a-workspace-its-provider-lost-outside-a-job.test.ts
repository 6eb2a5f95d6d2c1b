/**
 * A workspace whose provider lost what held it (a swarm node gone, #22) was
 * noticed only when a run met it. doctor asks every provider about every
 * workspace, so it notices it too: plain doctor reports it with the
 * provider's reason and changes nothing; `repair` with `apply` records it
 * `failed` with that reason (as a run that met the lost node records it),
 * which inspect then shows (before, inspect names the loss among its
 * attention items). The provider here is the fake, saying of one
 * workspace what the swarm provider says of one whose node is down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../../src/core/clock.js';
import { createEngine, type Engine } from '../../../../src/core/engine.js';
import { sequentialIds } from '../../../../src/core/ids.js';
import { createFakeProvider } from '../../../../src/providers/fake/fake-provider.js';

const REASON = 'its node n2 (198.18.0.3) is down; its files were on that node';
let home = '';
let engine: Engine | undefined;
afterEach(() => {
  engine?.close();
  rmSync(home, { recursive: true, force: true });
});

function engineLosing(lostId: string): Engine {
  home = mkdtempSync(join(tmpdir(), 'hs-test-'));
  return createEngine({
    home,
    version: '0.0.0-test',
    defaultProvider: 'fake',
    clock: createVirtualClock(),
    ids: sequentialIds(),
    providers: {
      fake: ({ clock }) => {
        const fake = createFakeProvider({ clock, persistPath: join(home, 'fake', 'state.json') });
        return {
          ...fake,
          inspect: async (id: string) =>
            id === lostId ? { workspaceId: id, state: 'missing' as const, profile: '', environmentDigest: '', lost: REASON } : fake.inspect(id),
        };
      },
    },
  });
}

describe('doctor and a workspace its provider lost', () => {
  it('reports it with the reason and changes nothing, then records it failed with repair and apply', async () => {
    engine = engineLosing('gone');
    await engine.create({ workspaceId: 'gone' });
    await engine.create({ workspaceId: 'fine' });
    const look = await engine.doctor({ provider: 'fake' });
    const item = look.attention.find((a) => a.workspace_id === 'gone');
    expect(item?.text).toContain(`is lost: ${REASON}`);
    expect(look.attention.some((a) => a.workspace_id === 'fine')).toBe(false);
    const before = await engine.inspect({ handle: 'gone' });
    expect(before.outcome_summary).not.toMatch(/failed/);
    expect(JSON.stringify(before.attention)).toContain(`lost it: ${REASON}`);

    const dry = await engine.doctor({ provider: 'fake', repair: true });
    expect(dry.key_findings).toContain(`would record workspace gone failed: ${REASON}`);

    const applied = await engine.doctor({ provider: 'fake', repair: true, apply: true });
    expect(applied.key_findings).toContain(`repaired: workspace gone recorded failed: ${REASON}`);
    const seen = await engine.inspect({ handle: 'gone' });
    expect(JSON.stringify(seen)).toContain(`failed because: ${REASON}`);
    expect(JSON.stringify(await engine.inspect({ handle: 'fine' }))).not.toContain('failed because');
  });
});
