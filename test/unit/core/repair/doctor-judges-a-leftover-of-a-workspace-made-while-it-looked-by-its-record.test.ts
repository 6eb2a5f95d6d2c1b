/**
 * doctor lists the workspaces before it asks the providers for leftovers, so
 * a folder of a workspace whose create was under way then named a workspace
 * it had no facts for, and was planned for removal as one of no workspace
 * (red team: doctor racing creates and forks). Such a workspace's record is
 * now read when the leftover is, and a folder that may hold its files is a
 * judgement call, never removed.
 */
import { afterEach, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

it('does not remove the folder of a workspace created after it listed the workspaces', async () => {
  t = makeTestEngine();
  const provider = await (t.engine as EngineWithProviders).provider('fake');
  const removed: string[] = [];
  provider.removeLeftover = async (leftover) => {
    removed.push(leftover.target);
    return true;
  };
  // Runs after doctor has listed the workspaces: the workspace is made now, and its folder looks like a leftover.
  provider.leftovers = async () => {
    await t.engine.create({ workspaceId: 'late' });
    return [{ kind: 'directory', workspaceId: 'late', target: '/nowhere/late', detail: 'a folder without its meta.json' }];
  };
  const report = await t.engine.doctor({ repair: true, apply: true });
  expect(removed).toEqual([]);
  expect(JSON.stringify(report.attention)).toContain('workspace late is recorded ready');
});
