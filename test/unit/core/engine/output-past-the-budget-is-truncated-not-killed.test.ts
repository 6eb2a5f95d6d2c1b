/**
 * The output budget caps what is captured, not how long a job may print:
 * past it, the log keeps the first bytes and the last lines around a marked
 * gap (every byte is still counted, at most the budget is kept, the evidence
 * is marked truncated) and the job runs on to its own exit
 * status, which alone decides its status. The wall clock still bounds a job
 * that prints forever.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const BUDGET = 64 * 1024;
const FLOOD = 5 * 1024 * 1024;

async function runIn(argv: string[], budget: Record<string, number> = {}) {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'noisy', budget: { outputBytes: BUDGET, ...budget } });
  return t.engine.run({ workspaceId: 'noisy', argv });
}

describe('output past the budget', () => {
  it('is truncated while a correct job runs on to success', async () => {
    const pkg = await runIn(['flood', String(FLOOD), '&&', 'echo', 'finished-after-the-flood']);
    expect(pkg.status).toBe('success');
    expect(pkg.provenance.exit_code).toBe(0);
    expect(pkg.resource_usage.output_bytes).toBe(FLOOD + 'finished-after-the-flood\n'.length);
    expect(pkg.evidence[0]?.truncated).toBe(true);
    expect(pkg.key_findings.join('\n')).toMatch(/output budget of 64 KiB was reached.*truncated/);
    const log = join(t.home, 'jobs', `${pkg.provenance.job_id}.log`);
    expect(statSync(log).size).toBeLessThanOrEqual(BUDGET);
    // The first bytes, a marked gap, then the last lines: what the job said after its flood is kept.
    expect(readFileSync(log, 'utf8')).toMatch(
      /…\[\d+ bytes not kept: the output budget keeps the first \d+ and the last \d+ bytes\]…\n[\s\S]*finished-after-the-flood\n$/,
    );
  });

  it('leaves the status to the job’s own exit status', async () => {
    const pkg = await runIn(['flood', String(FLOOD), '&&', 'exit', '3']);
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.exit_code).toBe(3);
    expect(pkg.outcome_summary).toContain('failed with exit status 3');
  });

  it('does not stop a job that prints forever: its wall clock does', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'forever', budget: { outputBytes: BUDGET, wallClockSeconds: 1 } });
    const pkg = await t.engine.run({ workspaceId: 'forever', argv: ['flood', String(2 ** 40)] });
    expect(pkg.status).toBe('timeout');
    expect(pkg.resource_usage.output_bytes).toBeGreaterThan(BUDGET);
    expect(statSync(join(t.home, 'jobs', `${pkg.provenance.job_id}.log`)).size).toBeLessThanOrEqual(BUDGET);
  });
});
