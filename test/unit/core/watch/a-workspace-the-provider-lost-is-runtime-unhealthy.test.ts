/**
 * A workspace recorded as ready that the provider no longer knows (its
 * state removed behind the engine's back) ends the watch with
 * runtime_unhealthy, pointing at doctor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('watch of a workspace its provider lost', () => {
  it('ends with runtime_unhealthy', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const statePath = join(t.home, 'fake', 'state.json');
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as { workspaces: Record<string, unknown> };
    delete state.workspaces.w;
    writeFileSync(statePath, JSON.stringify(state));
    const pkg = await t.engine.watch({ handle: 'w', forSeconds: 30, everySeconds: 1 });
    expect(pkg.status).toBe('failure');
    const violation = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'runtime_unhealthy' });
    expect(pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'watch-sample')).toMatchObject({
      provider_state: 'missing',
      workspace_state: 'ready',
    });
    expect(pkg.attention[0]?.action).toMatchObject({ verb: 'doctor' });
  });
});
