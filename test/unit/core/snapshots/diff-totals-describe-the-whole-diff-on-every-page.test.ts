/**
 * A paged diff's totals (changes by kind, bytes of new content) describe the
 * whole diff on every page, the same whatever the limit and offset; the page
 * is described beside them (which changes it shows, whether more follow).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StructuredFinding } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { remove, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
beforeAll(async () => {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'w' });
  await write(engine, 'w', 'keep.txt', 'old');
  await write(engine, 'w', 'gone.txt', 'bye');
  await engine.checkpoint({ workspaceId: 'w' });
  await write(engine, 'w', 'keep.txt', 'newer');
  await remove(engine, 'w', 'gone.txt');
  for (const n of [1, 2, 3, 4, 5]) await write(engine, 'w', `f${n}.txt`, 'x'.repeat(n));
});
afterAll(() => t.cleanup());

const totalsOf = (findings: unknown[]) =>
  findings.find((f): f is StructuredFinding => typeof f === 'object' && (f as StructuredFinding).kind === 'diff-totals')!;

describe('diff totals', () => {
  it('count the whole diff, not the page, and describe the page apart', async () => {
    const page = await t.engine.diff({ workspaceId: 'w', limit: 2 });
    expect(page.outcome_summary).toContain('7 change(s): 5 created, 1 modified, 1 deleted; 20 bytes of new content');
    expect(page.outcome_summary).toContain('this page: changes 1–2');
    expect(totalsOf(page.key_findings)).toMatchObject({
      total_changes: 7,
      created: 5,
      modified: 1,
      deleted: 1,
      total_bytes: 20,
      totals_complete: true,
      page_offset: 0,
      page_changes: 2,
      has_more: true,
    });
    expect(totalsOf(page.key_findings).base_checkpoint_id).toMatch(/^cp-/);
  });

  it('are the same on every page whatever the limit and offset (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 8 }), async (limit, offset) => {
        const result = await t.engine.diff({ workspaceId: 'w', limit, offset });
        const totals = totalsOf(result.key_findings);
        expect(totals).toMatchObject({ total_changes: 7, created: 5, modified: 1, deleted: 1, total_bytes: 20 });
        expect(totals.page_changes).toBe(Math.max(0, Math.min(limit, 7 - offset)));
        expect(totals.has_more).toBe(offset + limit < 7);
      }),
      { seed: 314, numRuns: 25 },
    );
  });
});
