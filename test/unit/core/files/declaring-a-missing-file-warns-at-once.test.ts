/**
 * `declare` of a name the workspace does not hold is allowed (a later job
 * may write it) but warned about at once, with the call that withdraws it:
 * a typo used to show only at export. A file that is there gets no warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('declare', () => {
  it('warns when the file is not there, and not when it is', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'd' });
    await t.engine.run({ workspaceId: 'd', argv: ['write', 'out/summary.csv', 'a,b'] });
    const typo = await t.engine.declare({ workspaceId: 'd', name: 'out/sumary.csv', purpose: 'the summary' });
    expect(typo.status).toBe('success');
    expect(typo.warnings.join('\n')).toContain("there is no file 'out/sumary.csv' in the workspace yet");
    expect(typo.warnings.join('\n')).toContain('a typo is withdrawn by declare with remove');
    const real = await t.engine.declare({ workspaceId: 'd', name: 'out/summary.csv', purpose: 'the summary' });
    expect(real.warnings).toEqual([]);
  });
});
