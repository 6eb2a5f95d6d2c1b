/**
 * fork stops between children when its signal aborts (the CLI's Ctrl-C, a
 * served call's relayed signal, an MCP cancel): the forks made stay whole and
 * ready, the rest are never started, and the result reads cancelled (exit 5).
 */
import { afterEach, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { refusal, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

it('keeps the forks made before the abort, makes none after it, and reads cancelled', async () => {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  await write(engine, 'p', 'a.txt', 'v1');
  const controller = new AbortController();
  // The abort lands as the second child is made: it is finished, the third and fourth never start.
  const off = engine.events.subscribe((event) => {
    if (event.type === 'workspace.created' && event.workspaceId === 'f2') controller.abort();
  });
  const forked = await engine.fork({ workspaceId: 'p', workspaceIds: ['f1', 'f2', 'f3', 'f4'], signal: controller.signal });
  off();
  expect(forked.status).toBe('cancelled');
  expect(exitCodeOf('cancelled')).toBe(5);
  expect(forked.outcome_summary).toContain('f1, f2 only (2 of 4)');
  expect(forked.attention.map((a) => a.text)).toContain('interrupted: 2 of 4 forks were not made (f3, f4); fork again for more');
  for (const made of ['f1', 'f2']) expect(await treeOf(engine, made)).toEqual({ 'a.txt': 'v1' });
  for (const never of ['f3', 'f4']) expect((await refusal(engine.inspect({ handle: never }))).code).toBe('WORKSPACE_NOT_FOUND');
  // The parent is free again: nothing of the fork holds it.
  expect((await engine.fork({ workspaceId: 'p', workspaceIds: ['f3'] })).status).toBe('success');
});

it('makes nothing when the signal has aborted before it starts', async () => {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  const forked = await engine.fork({ workspaceId: 'p', workspaceIds: ['f1', 'f2'], signal: AbortSignal.abort() });
  expect(forked.status).toBe('cancelled');
  expect(forked.outcome_summary).toBe('interrupted before any fork of p was made; nothing was forked');
  for (const never of ['f1', 'f2']) expect((await refusal(engine.inspect({ handle: never }))).code).toBe('WORKSPACE_NOT_FOUND');
});
