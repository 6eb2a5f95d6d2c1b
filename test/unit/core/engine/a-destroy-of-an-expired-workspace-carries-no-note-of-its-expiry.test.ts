/**
 * Destroying a workspace past its expiry reports no attention about that
 * expiry: its result said "passed its expiry …; the next gc will expire and
 * remove it" of the workspace it had just removed (red team, session 19).
 */
import { afterEach, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

it('names no expiry of the workspace it destroyed', async () => {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'gone', ttlSeconds: 60 });
  t.clock.advance(120_000);
  const destroyed = await t.engine.destroy({ workspaceId: 'gone' });
  expect(destroyed.status).toBe('success');
  expect(destroyed.attention.filter((a) => a.kind === 'expired')).toEqual([]);
});
