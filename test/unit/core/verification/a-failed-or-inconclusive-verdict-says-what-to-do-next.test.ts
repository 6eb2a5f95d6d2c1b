/**
 * A verdict that did not pass carries its next actions (#16 review): the
 * call that shows the evidence the deciding check rests on (a bounded read of
 * the job's output for a pattern, when the result cut it, the files where a file check looked, the job's own
 * output beside a check command's), the job's receipt with every check's
 * outcome and evidence digest, and for an inconclusive one why the check
 * could not answer and what would let it. A passing verdict adds none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function run(input: Record<string, unknown>, budget: Record<string, number> = {}): Promise<ResultPackage> {
  t = makeTestEngine();
  const ws = (await t.engine.create({ budget })).provenance.workspace_id!;
  return t.engine.run({ workspaceId: ws, ...input } as never);
}
const actions = (pkg: ResultPackage) => pkg.attention.filter((a) => a.action).map((a) => [a.action!.verb, a.action!.args]);
const remedies = (pkg: ResultPackage) => pkg.attention.filter((a) => a.kind === 'remedy').map((a) => a.text);

describe('a verdict that did not pass', () => {
  it('points a failed pattern over a cut output at a bounded read of the log, and at the receipt', async () => {
    const pkg = await run({ argv: ['flood', '100000'], expectOutput: ['^answer=42$'] });
    expect(pkg.status).toBe('failure');
    const job = pkg.provenance.job_id!;
    expect(actions(pkg)).toEqual(
      expect.arrayContaining([
        ['logs', { jobId: job, tail: 200 }],
        ['receipt', { jobId: job }],
      ]),
    );
    expect(remedies(pkg)).toEqual([]);
  });

  it('points a failed file check at the directory it looked in', async () => {
    const pkg = await run({ argv: ['true'], expectFiles: [{ path: 'out/result.json' }] });
    expect(pkg.status).toBe('failure');
    expect(actions(pkg)).toContainEqual(['ls-files', { workspaceId: pkg.provenance.workspace_id, path: 'out' }]);
  });

  it('says why an inconclusive check could not answer and what would let it', async () => {
    const notFound = await run({ argv: ['true'], verify: [['no-such-checker']] });
    expect(notFound.status).toBe('inconclusive');
    expect(actions(notFound)).toContainEqual(['receipt', { jobId: notFound.provenance.job_id }]);
    expect(remedies(notFound)).toEqual([expect.stringContaining("not on the workspace's PATH")]);
    t.cleanup();

    const slow = await run({ argv: ['true'], verify: [['sleep', '30']] }, { wallClockSeconds: 2 });
    expect(slow.status).toBe('inconclusive');
    expect(remedies(slow)).toEqual([expect.stringContaining("the workspace's wall clock (2 s): run them in a workspace created with a longer wall clock")]);
    t.cleanup();

    const cut = await run({ argv: ['flood', '100000'], expectOutput: ['^answer='] }, { outputBytes: 4096 });
    expect(cut.status).toBe('inconclusive');
    expect(remedies(cut)).toEqual([expect.stringContaining('larger output budget')]);
  });

  it('adds nothing when every check passed', async () => {
    const pkg = await run({ argv: ['echo', 'answer=42'], expectOutput: ['^answer=42$'] });
    expect(pkg.status).toBe('success');
    expect(pkg.attention.filter((a) => a.action?.verb === 'receipt' || a.kind === 'remedy')).toEqual([]);
  });
});
