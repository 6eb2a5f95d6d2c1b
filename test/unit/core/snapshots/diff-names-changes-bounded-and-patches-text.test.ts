/**
 * diff lists created, modified and deleted paths with sizes and digests,
 * bounded with a marker and the call for the rest; patch adds unified diffs
 * of text files and names binary ones without dumping them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { refusal, remove, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('diff', () => {
  it('lists each change since the latest checkpoint with its size and digest, and patches text', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    await write(engine, 'w', 'a.txt', 'alpha');
    await write(engine, 'w', 'b.txt', 'beta');
    await engine.checkpoint({ workspaceId: 'w' });
    await write(engine, 'w', 'a.txt', 'ALPHA');
    await write(engine, 'w', 'c.txt', 'gamma');
    await remove(engine, 'w', 'b.txt');
    const result = await engine.diff({ workspaceId: 'w', patch: true });
    expect(result.outcome_summary).toContain('1 created, 1 modified, 1 deleted');
    expect(result.key_findings[0]).toMatch(/^modified a\.txt: 5 bytes, sha256:[0-9a-f]{64}/);
    expect(result.key_findings[1]).toMatch(/^deleted b\.txt, was sha256:[0-9a-f]{64}/);
    expect(result.key_findings[2]).toMatch(/^created c\.txt: 5 bytes, sha256:[0-9a-f]{64}/);
    const patch = result.evidence[0]!.excerpt;
    expect(patch).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-alpha\n+ALPHA\n');
    expect(patch).toContain('-beta');
    expect(patch).toContain('+gamma');
  });

  it('stops at its limit with a marker and the call that returns the next page', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    await engine.checkpoint({ workspaceId: 'w' });
    for (const n of [1, 2, 3, 4, 5]) await write(engine, 'w', `f${n}.txt`, `${n}`);
    const first = await engine.diff({ workspaceId: 'w', limit: 2 });
    expect(first.key_findings.slice(0, 2)).toEqual([expect.stringMatching(/^created f1\.txt/), expect.stringMatching(/^created f2\.txt/)]);
    expect(first.key_findings[2]).toMatch(/more changes after these 2/);
    const next = first.attention.find((a) => a.action?.verb === 'diff')!.action!;
    expect(next.args).toMatchObject({ workspaceId: 'w', offset: 2, limit: 2 });
    const second = await engine.diff(next.args as never);
    expect(second.key_findings[0]).toMatch(/^created f3\.txt/);
  });

  it('refuses a workspace with no checkpoint and no fork, naming checkpoint as the way', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const error = await refusal(engine.diff({ workspaceId: 'w' }));
    expect(error.code).toBe('BAD_ARGUMENT');
    expect(error.action?.verb).toBe('checkpoint');
  });
});
