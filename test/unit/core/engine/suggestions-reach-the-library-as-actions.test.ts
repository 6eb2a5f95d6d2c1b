/**
 * A library caller gets each suggestion as data: an attention item carries
 * `action` (verb and arguments) and an excerpt carries `retrieval_action`;
 * no text in the package is a CLI command line (#11 item 3).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('suggestions for a library caller', () => {
  it('are actions in the package, and no text names a CLI command', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const ran = await t.engine.run({
      workspaceId: 'w',
      jobId: 'job-w',
      argv: ['write', 'out.txt', 'x', '&&', 'flood', '300000'],
      declares: [{ name: 'out.txt', purpose: 'kept' }],
    });
    expect(ran.attention.find((a) => a.kind === 'unexported-artifact')?.action).toEqual({
      verb: 'export',
      args: { workspaceId: 'w', name: 'out.txt' },
      needs: ['to'],
    });
    expect(ran.evidence[0]?.retrieval_action).toEqual({ verb: 'logs', args: { jobId: 'job-w' }, whole: true });
    expect(ran.evidence[0]?.retrieval).toBeUndefined();
    expect(JSON.stringify(ran)).not.toMatch(/headspace (export|destroy|inspect)|--[a-z]/);
  });
});
