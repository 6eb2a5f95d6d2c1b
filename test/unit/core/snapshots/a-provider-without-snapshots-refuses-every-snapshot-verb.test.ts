/**
 * A provider whose capabilities do not list `snapshots` refuses every
 * snapshot verb with exit 3 naming the capability, before doing anything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { engineWithoutSnapshots, refusal } from '../../../helpers/snapshots.js';

const home = mkdtempSync(join(tmpdir(), 'hs-nosnap-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a provider without snapshots', () => {
  it('refuses checkpoint, restore, diff, fork and seal with exit 3 naming the capability', async () => {
    const engine = engineWithoutSnapshots(home);
    await engine.create({ workspaceId: 'w' });
    const calls = [
      () => engine.checkpoint({ workspaceId: 'w' }),
      () => engine.restore({ workspaceId: 'w', checkpointId: 'cp-1' }),
      () => engine.diff({ workspaceId: 'w' }),
      () => engine.fork({ workspaceId: 'w', workspaceIds: ['child'] }),
      () => engine.seal({ workspaceId: 'w' }),
    ];
    for (const call of calls) {
      const error = await refusal(call());
      expect(error.code).toBe('POLICY_DENIED');
      expect(exitCodeOf(error.category)).toBe(3);
      expect(error.message).toContain('snapshots capability');
      expect(error.message).toContain('plain provider');
    }
    expect((await refusal(engine.inspect({ handle: 'child' }))).code).toBe('WORKSPACE_NOT_FOUND');
    engine.close();
  });
});
