/**
 * A verdict that did not pass offers a read of the job's log only when the
 * result did not already show all of the output: `run --verify false … echo
 * hi` shows its 3 bytes in full, so offering the whole raw log again is noise.
 * When the output was cut, the read offered is bounded (logs with a tail),
 * never the unbounded whole log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function run(input: Record<string, unknown>): Promise<ResultPackage> {
  t = makeTestEngine();
  const ws = (await t.engine.create({})).provenance.workspace_id!;
  return t.engine.run({ workspaceId: ws, ...input } as never);
}
const logReads = (pkg: ResultPackage) => pkg.attention.filter((a) => a.action?.verb === 'logs' || a.action?.verb === 'inspect').map((a) => a.action!);

describe('a verdict that did not pass', () => {
  it('offers no log read when a failed check command follows an output shown whole', async () => {
    const pkg = await run({ argv: ['echo', 'hi'], verify: [['false']] });
    expect(pkg.status).toBe('failure');
    expect(pkg.evidence.find((e) => e.label === 'captured output')?.truncated).toBe(false);
    expect(logReads(pkg)).toEqual([]);
    expect(pkg.attention.some((a) => a.action?.verb === 'receipt')).toBe(true);
  });

  it('offers no log read when a failed pattern searched an output shown whole', async () => {
    const pkg = await run({ argv: ['echo', 'answer=41'], expectOutput: ['^answer=42$'] });
    expect(pkg.status).toBe('failure');
    expect(logReads(pkg)).toEqual([]);
  });

  it('offers a bounded read, never the whole log, when the output was cut', async () => {
    const pkg = await run({ argv: ['flood', '100000'], verify: [['false']] });
    expect(pkg.status).toBe('failure');
    const reads = logReads(pkg);
    expect(reads).toEqual([{ verb: 'logs', args: { jobId: pkg.provenance.job_id, tail: 200 } }]);
    expect(reads.some((a) => a.whole === true)).toBe(false);
  });
});
