/**
 * Aborting the signal (Ctrl-C on the CLI, a cancelled MCP call) ends the
 * watch at once with the report of the samples so far, status cancelled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('an aborted watch', () => {
  it('returns the report so far as cancelled', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'w' });
    const controller = new AbortController();
    let count = 0;
    const started = Date.now();
    const pkg = await t.engine.watch({
      handle: 'w',
      forSeconds: 600,
      everySeconds: 0.1,
      signal: controller.signal,
      onSample: () => {
        if (++count === 3) controller.abort();
      },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(pkg.status).toBe('cancelled');
    expect(pkg.outcome_summary).toContain('cancelled');
    expect(pkg.key_findings[0]).toContain('3 sample(s)');
    expect(pkg.attention).toEqual([]);
  });
});
