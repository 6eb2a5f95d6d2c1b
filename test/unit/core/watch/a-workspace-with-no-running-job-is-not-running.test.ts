/**
 * watch with requireRunning ends at the first sample when nothing runs: the
 * violation not_running, status failure (exit 6), and one sample taken.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, categoryOfStatus } from '../../../../src/core/status.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('watch of a workspace with no running job, requiring one', () => {
  it('ends at once with not_running and exit 6', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    await t.engine.run({ workspaceId: 'w', argv: ['echo', 'done'] });
    const pkg = await t.engine.watch({ handle: 'w', forSeconds: 60, everySeconds: 1, requireRunning: true });
    expect(pkg.status).toBe('failure');
    expect(EXIT_CODES[categoryOfStatus(pkg.status)]).toBe(6);
    const violation = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'not_running' });
    expect(pkg.outcome_summary).toContain('not_running');
    expect(pkg.key_findings.filter((f) => typeof f !== 'string' && f.kind === 'watch-sample')).toHaveLength(1);
  });
});
