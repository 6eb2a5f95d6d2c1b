/**
 * restore refuses, changing nothing: while a job runs (exit 2 naming it), a
 * consumed checkpoint's second restore (exit 2), and a checkpoint whose data
 * does not verify, which inspect then lists as invalid.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('restore refusals', () => {
  it('refuses while a job runs, naming the job, with exit 2', async () => {
    t = makeTestEngine({ realClock: true });
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const id = idAfter((await engine.checkpoint({ workspaceId: 'w' })).key_findings, 'checkpoint');
    const job = engine.run({ workspaceId: 'w', jobId: 'job-blocking', argv: ['block'] });
    await waitUntilRunning(engine, 'w');
    const error = await refusal(engine.restore({ workspaceId: 'w', checkpointId: id }));
    expect(error.code).toBe('WORKSPACE_BUSY');
    expect(exitCodeOf(error.category)).toBe(2);
    expect(error.message).toContain('job-blocking');
    await engine.stop({ workspaceId: 'w', apply: true, graceSeconds: 0 });
    await job;
  });

  it('restores a consumed checkpoint once and refuses the second restore with exit 2', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    await write(engine, 'w', 'a.txt', 'one');
    const id = idAfter((await engine.checkpoint({ workspaceId: 'w' })).key_findings, 'checkpoint');
    await write(engine, 'w', 'a.txt', 'two');
    expect((await engine.restore({ workspaceId: 'w', checkpointId: id, consume: true })).status).toBe('success');
    await write(engine, 'w', 'a.txt', 'three');
    const error = await refusal(engine.restore({ workspaceId: 'w', checkpointId: id }));
    expect(error.code).toBe('CHECKPOINT_CONSUMED');
    expect(exitCodeOf(error.category)).toBe(2);
    expect(await treeOf(engine, 'w')).toEqual({ 'a.txt': 'three' });
  });

  it('never restores a checkpoint whose data does not verify, and inspect lists it invalid', async () => {
    t = makeTestEngine();
    const { engine, home } = t;
    await engine.create({ workspaceId: 'w' });
    await write(engine, 'w', 'a.txt', 'one');
    const id = idAfter((await engine.checkpoint({ workspaceId: 'w' })).key_findings, 'checkpoint');
    await write(engine, 'w', 'a.txt', 'two');
    // The provider's copy of the checkpoint changes behind the engine's back.
    const file = join(home, 'fake', 'state.json');
    const state = JSON.parse(readFileSync(file, 'utf8')) as { workspaces: Record<string, { checkpoints: Record<string, { files: Record<string, string> }> }> };
    state.workspaces.w!.checkpoints[id]!.files['a.txt'] = Buffer.from('tampered').toString('base64');
    writeFileSync(file, JSON.stringify(state));

    const error = await refusal(engine.restore({ workspaceId: 'w', checkpointId: id }));
    expect(error.code).toBe('CHECKPOINT_INVALID');
    expect(await treeOf(engine, 'w')).toEqual({ 'a.txt': 'two' });
    const inspected = await engine.inspect({ handle: 'w' });
    expect(inspected.key_findings).toContainEqual(
      expect.objectContaining({ kind: 'checkpoint', checkpoint_id: id, state: 'invalid', text: expect.stringMatching(`^checkpoint ${id}: invalid`) }),
    );
  });

  it('refuses a checkpoint id of another workspace as not found', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'a' });
    await engine.create({ workspaceId: 'b' });
    const id = idAfter((await engine.checkpoint({ workspaceId: 'a' })).key_findings, 'checkpoint');
    expect((await refusal(engine.restore({ workspaceId: 'b', checkpointId: id }))).code).toBe('CHECKPOINT_NOT_FOUND');
  });
});
