/**
 * fork makes N workspaces whose files are exactly the parent's, with the
 * parent's policy (a budget may narrow, never widen), a recorded baseline
 * and a link both ways in inspect; a running parent is refused unless at.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const texts = (findings: unknown[]) => findings.map((f) => (typeof f === 'string' ? f : (f as { text: string }).text));

describe('fork', () => {
  it("makes N workspaces holding the parent's files, each linked to it and with its policy", async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'p', budget: { memoryBytes: 256 * 1024 * 1024 } });
    await write(engine, 'p', 'src/main.txt', 'v1');
    const forked = await engine.fork({ workspaceId: 'p', count: 2, workspaceIds: ['try-a'] });
    expect(forked.status).toBe('success');
    const children = ['try-a', 'ws-000001'];
    for (const child of children) {
      expect(await treeOf(engine, child)).toEqual({ 'src/main.txt': 'v1' });
      const inspected = await engine.inspect({ handle: child });
      expect(texts(inspected.key_findings).some((f) => f.startsWith('fork of p: baseline checkpoint'))).toBe(true);
      expect(inspected.provenance.policy_digest).toBe((await engine.inspect({ handle: 'p' })).provenance.policy_digest);
    }
    const parent = texts((await engine.inspect({ handle: 'p' })).key_findings);
    expect(parent).toContain('forks: try-a (ready), ws-000001 (ready)');

    // The forks are independent of the parent and of each other.
    await write(engine, 'try-a', 'src/main.txt', 'a');
    expect(await treeOf(engine, 'p')).toEqual({ 'src/main.txt': 'v1' });
    expect(await treeOf(engine, 'ws-000001')).toEqual({ 'src/main.txt': 'v1' });
  });

  it('narrows a budget but refuses to widen one, with exit 3, making nothing', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'p', budget: { memoryBytes: 256 * 1024 * 1024 } });
    const narrowed = await engine.fork({ workspaceId: 'p', workspaceIds: ['small'], budget: { memoryBytes: 128 * 1024 * 1024 } });
    expect(narrowed.status).toBe('success');
    const error = await refusal(engine.fork({ workspaceId: 'p', workspaceIds: ['big'], budget: { memoryBytes: 512 * 1024 * 1024 } }));
    expect(error.code).toBe('POLICY_DENIED');
    expect(exitCodeOf(error.category)).toBe(3);
    expect(error.message).toContain('memoryBytes');
    expect((await refusal(engine.inspect({ handle: 'big' }))).code).toBe('WORKSPACE_NOT_FOUND');
  });

  it('refuses a parent with a running job (exit 2) unless at names a checkpoint', async () => {
    t = makeTestEngine({ realClock: true });
    const { engine } = t;
    await engine.create({ workspaceId: 'p' });
    await write(engine, 'p', 'a.txt', 'before');
    const cp = idAfter((await engine.checkpoint({ workspaceId: 'p' })).key_findings, 'checkpoint');
    const job = engine.run({ workspaceId: 'p', jobId: 'job-long', argv: ['block'] });
    await waitUntilRunning(engine, 'p');
    const error = await refusal(engine.fork({ workspaceId: 'p', workspaceIds: ['c'] }));
    expect(error.code).toBe('WORKSPACE_BUSY');
    expect(exitCodeOf(error.category)).toBe(2);
    expect(error.message).toContain('job-long');
    expect((await engine.fork({ workspaceId: 'p', workspaceIds: ['c'], at: cp })).status).toBe('success');
    expect(await treeOf(engine, 'c')).toEqual({ 'a.txt': 'before' });
    await engine.stop({ workspaceId: 'p', apply: true, graceSeconds: 0 });
    await job;
  });
});
