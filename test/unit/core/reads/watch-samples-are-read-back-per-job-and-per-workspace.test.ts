/**
 * engine.watchSamples (#21) reads back what watch recorded: a job's samples
 * whichever handle (the job or its workspace) was watched, a workspace's
 * from every watch of it or its jobs, oldest first and at most the newest
 * `limit`; a cut or foreign line in a record is passed over, and a home that
 * never watched anything has no samples, not an error.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
beforeEach(() => {
  t = makeTestEngine();
});
afterEach(() => t.cleanup());

describe('watch samples read back', () => {
  it("gives a job's samples from a watch of the job or of its workspace, and a workspace's from both", async () => {
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    const first = (await t.engine.run({ workspaceId: ws, argv: ['echo', 'one'] })).provenance.job_id!;
    expect((await t.engine.watchSamples({ handle: first })).samples).toEqual([]);

    await t.engine.watch({ handle: first, forSeconds: 1, everySeconds: 0.5 });
    const second = (await t.engine.run({ workspaceId: ws, argv: ['echo', 'two'] })).provenance.job_id!;
    await t.engine.watch({ handle: ws, forSeconds: 1.5, everySeconds: 0.5 });

    const ofFirst = await t.engine.watchSamples({ handle: first });
    expect(ofFirst).toMatchObject({ kind: 'job', total: 3, watches: 1 });
    expect(ofFirst.samples.every((s) => s.job_id === first)).toBe(true);
    // The workspace's watch followed its latest job: those samples are the second job's.
    const ofSecond = await t.engine.watchSamples({ handle: second });
    expect(ofSecond).toMatchObject({ kind: 'job', total: 4, watches: 1 });

    const ofWs = await t.engine.watchSamples({ handle: ws });
    expect(ofWs).toMatchObject({ kind: 'workspace', total: 7, watches: 2 });
    expect(ofWs.samples.map((s) => s.at)).toEqual([...ofWs.samples.map((s) => s.at)].sort());

    const newest = await t.engine.watchSamples({ handle: ws, limit: 2 });
    expect(newest.samples).toEqual(ofWs.samples.slice(-2));
    expect(newest.total).toBe(7);
  });

  it('passes over a cut line and a line that is not a sample', async () => {
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    await t.engine.watch({ handle: ws, forSeconds: 0.5, everySeconds: 0.5 });
    const record = join(t.home, 'watch', `${ws}-trace-planted.jsonl`);
    appendFileSync(record, `{"type":"sample","at":"2026-01-01T00:00:00.000Z","workspace_id":"${ws}","memory_bytes":"lots"}\n{"type":"sample","at":"20`);
    const read = await t.engine.watchSamples({ handle: ws });
    expect(read.total).toBe(2);
    expect(read.samples.every((s) => typeof s.memory_bytes === 'number' || s.memory_bytes === null)).toBe(true);
  });

  it('refuses an unknown handle and a limit out of range', async () => {
    await expect(t.engine.watchSamples({ handle: 'ws-nope' })).rejects.toMatchObject({ code: 'WORKSPACE_NOT_FOUND' });
    await expect(t.engine.watchSamples({ handle: '../etc' })).rejects.toMatchObject({ code: 'BAD_ID' });
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    await expect(t.engine.watchSamples({ handle: ws, limit: 0 })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
