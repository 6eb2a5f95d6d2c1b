/**
 * A workspace past its TTL takes no new job: run is refused with
 * environment_error (exit 2), naming when it expired, before anything runs
 * or is recorded; gc then destroys it. Before the expiry it runs as usual.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../../src/core/errors.js';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('an expired workspace', () => {
  it('refuses a new job with exit 2 naming the expiry, and gc destroys it', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'brief', ttlSeconds: 60 });
    expect((await t.engine.run({ workspaceId: 'brief', argv: ['true'] })).status).toBe('success');
    t.clock.advance(61_000);
    const expiry = new Date(t.clock.now() - 1000).toISOString();
    const refused = await t.engine.run({ workspaceId: 'brief', argv: ['echo', 'too late'] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EngineError);
    const error = refused as EngineError;
    expect(exitCodeOf(error.category)).toBe(2);
    expect(error.message).toContain('expired');
    expect(error.message).toContain(expiry);
    expect(error.hint).toContain('gc');
    // Nothing ran: the workspace still has its one job.
    const inspected = await t.engine.inspect({ handle: 'brief' });
    expect(JSON.stringify(inspected)).not.toContain('too late');
    const gc = await t.engine.gc();
    expect(gc.key_findings.join('\n')).toContain('workspace brief destroyed');
  });
});
