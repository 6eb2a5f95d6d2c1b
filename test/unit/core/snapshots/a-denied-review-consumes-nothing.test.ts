/**
 * The merge gate: before select or apply changes the parent, its reviewers
 * (deny-paths, max-changes) judge the output; every decision is journalled
 * and shown, a denial names the paths and the rule (exit 3) and consumes
 * nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('the merge gate', () => {
  it('denies an output touching a denied glob, naming path and rule, journalling without bodies, consuming nothing', async () => {
    t = makeTestEngine();
    const { engine, home } = t;
    await engine.create({ workspaceId: 'p', reviewPolicy: { denyPaths: ['*.pem', '.git/**', '.env'] } });
    await write(engine, 'p', 'readme.txt', 'hi');
    await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await write(engine, 'c', 'keys/server.pem', 'SECRET-KEY-BODY');
    await write(engine, 'c', 'readme.txt', 'better');
    const out = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');

    const error = await refusal(engine.settle({ outputId: out, decision: 'select' }));
    expect(error.code).toBe('REVIEW_DENIED');
    expect(exitCodeOf(error.category)).toBe(3);
    expect(error.message).toContain('keys/server.pem matches *.pem');
    expect(error.message).not.toContain('SECRET-KEY-BODY');
    expect(await treeOf(engine, 'p')).toEqual({ 'readme.txt': 'hi' });

    const store = SqliteStore.open(home);
    try {
      const reviews = new SnapshotRecords(store).reviewsOf(out);
      expect(reviews.map((r) => [r.reviewer, r.verdict])).toEqual([
        ['deny-paths', 'deny'],
        ['max-changes', 'allow'],
      ]);
      expect(reviews[0]!.paths).toEqual(['keys/server.pem']);
      expect(JSON.stringify(reviews)).not.toContain('SECRET-KEY-BODY');
    } finally {
      store.close();
    }

    // Unconsumed: with the rule lifted, the same output settles, and the result shows each decision.
    await engine.reviewPolicy({ workspaceId: 'p', clear: true });
    const settled = await engine.settle({ outputId: out, decision: 'select' });
    expect(settled.key_findings.filter((f) => typeof f === 'string' && f.startsWith('reviewer '))).toHaveLength(2);
  });

  it('denies an output past max-changes set by review-policy', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'p' });
    await engine.reviewPolicy({ workspaceId: 'p', maxFiles: 1 });
    await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await write(engine, 'c', 'a.txt', 'a');
    await write(engine, 'c', 'b.txt', 'b');
    const out = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    const error = await refusal(engine.settle({ outputId: out, decision: 'apply' }));
    expect(error.code).toBe('REVIEW_DENIED');
    expect(error.message).toContain('max-changes: 2 changed paths > max 1');
    expect(await treeOf(engine, 'p')).toEqual({});
  });
});
