/**
 * A provider whose isolation is simulated (the fake) labels its limits
 * within its simulation; every create on it says, in warnings, that nothing
 * runs for real and nothing is isolated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a simulated provider', () => {
  it('warns that nothing is isolated', async () => {
    t = makeTestEngine();
    const pkg = await t.engine.create();
    expect(pkg.warnings.join('\n')).toContain('nothing runs for real and nothing is isolated');
  });
});
