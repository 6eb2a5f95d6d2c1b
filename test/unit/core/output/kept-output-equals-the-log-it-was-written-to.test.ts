/**
 * A run's result takes its output excerpt from the bytes its sink kept in
 * memory instead of reading back the log it has just written (#20). That is
 * only sound if the two are the same bytes: for any mix of stdout and stderr
 * chunks (partial lines, budgets cutting mid-chunk), kept() equals the log's
 * content while it fits in KEPT_IN_MEMORY_BYTES, and is null past it (the
 * result then reads the log). A missing log folder is made on first use.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_IN_MEMORY_BYTES, openOutputSink } from '../../../../src/core/output/output-sink.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const chunk = fc.record({
  stream: fc.constantFrom('stdout' as const, 'stderr' as const),
  text: fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constant('\n'),
    fc.string({ maxLength: 20 }).map((s) => `${s}\n`),
    fc.constant('y'.repeat(30_000)),
  ),
});

describe('kept output', () => {
  it('equals the log the sink wrote while it fits in memory, and is null past that', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-kept-'));
    let n = 0;
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 12 }), fc.integer({ min: 1, max: 3 * KEPT_IN_MEMORY_BYTES }), (chunks, budget) => {
        const path = join(dir, `nested-${n}`, `${n++}.log`);
        const sink = openOutputSink(path, budget);
        for (const c of chunks) sink.write(c.stream, Buffer.from(c.text));
        expect(sink.kept()).toBeNull(); // not before close: a partial line may still be pending
        sink.close();
        const log = readFileSync(path);
        const kept = sink.kept();
        if (log.length <= KEPT_IN_MEMORY_BYTES) expect(kept?.equals(log)).toBe(true);
        else expect(kept).toBeNull();
      }),
      { numRuns: 150 },
    );
  });
});
