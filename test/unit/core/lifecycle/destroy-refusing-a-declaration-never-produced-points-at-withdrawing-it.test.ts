/**
 * destroy refuses while declared artifacts are unexported. For a declaration
 * no job ever produced (no such file), "export them first" cannot be done: a
 * new user went round in circles. The refusal now names what was never
 * produced and points at withdrawing it (declare with remove); a declared file
 * that exists is still to be exported.
 */
import { afterEach, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { refusal } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

it('names a declaration never produced and suggests withdrawing it', async () => {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'w' });
  await t.engine.declare({ workspaceId: 'w', name: 'report.json', purpose: 'the answer' });
  const error = await refusal(t.engine.destroy({ workspaceId: 'w' }));
  expect(error.code).toBe('WOULD_DISCARD');
  expect(error.message).toContain("(never produced, no such file: 'report.json')");
  expect(error.hint).toMatch(/^withdraw a declaration that was never produced \(declare with remove\), or discard/);
  expect(error.action).toEqual({ verb: 'declare', args: { workspaceId: 'w', name: 'report.json', remove: true } });
  // Done as suggested, destroy goes ahead.
  await t.engine.declare({ workspaceId: 'w', name: 'report.json', remove: true });
  expect((await t.engine.destroy({ workspaceId: 'w' })).status).toBe('success');
});

it('still asks to export a declared file that exists', async () => {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'w' });
  await t.engine.run({ workspaceId: 'w', argv: ['write', 'out.txt', 'x'], declares: [{ name: 'out.txt', purpose: 'kept' }] });
  const error = await refusal(t.engine.destroy({ workspaceId: 'w' }));
  expect(error.message).not.toContain('never produced');
  expect(error.hint).toBe('force discards them deliberately; to keep them, export them first');
});
