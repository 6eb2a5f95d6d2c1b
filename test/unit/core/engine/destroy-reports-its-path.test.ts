/**
 * destroy reports what was removed, retained and unverified and the
 * lifecycle path it took; a destroyed workspace is then refused by name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('destroy', () => {
  it('walks ready -> cancelled -> destroyed and reports the disposition', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'gone' });
    await t.engine.run({ workspaceId: 'gone', jobId: 'job-x', argv: ['echo', 'hi'] });
    const pkg = await t.engine.destroy({ workspaceId: 'gone' });
    expect(pkg.key_findings).toEqual([
      'removed: runtime, storage, job logs',
      'retained: (none)',
      'unverified: (none)',
      'lifecycle path: ready -> cancelled -> destroyed',
    ]);
    await expect(t.engine.inspect({ handle: 'gone' })).rejects.toMatchObject({
      code: 'WORKSPACE_DESTROYED',
      message: expect.stringContaining('destroyed workspace'),
    });
    await expect(t.engine.run({ workspaceId: 'gone', argv: ['echo'] })).rejects.toMatchObject({ code: 'WORKSPACE_DESTROYED' });
    await expect(t.engine.destroy({ workspaceId: 'gone' })).rejects.toMatchObject({
      code: 'WORKSPACE_DESTROYED',
      message: expect.stringMatching(/^workspace gone was already destroyed \(at .*\); nothing was done$/),
      hint: expect.stringContaining('nothing of it is left to remove'),
    });
  });
});

describe('a destroyed id', () => {
  it('may be used again by a new workspace', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'again' });
    await t.engine.run({ workspaceId: 'again', argv: ['echo', 'first life'] });
    await t.engine.destroy({ workspaceId: 'again' });
    const second = await t.engine.create({ workspaceId: 'again' });
    expect(second.status).toBe('success');
    expect((await t.engine.inspect({ handle: 'again' })).key_findings).toContain('0 job(s)');
  });
});
