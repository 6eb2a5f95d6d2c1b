/**
 * A comparison reads each entry with synchronous calls (#20: the
 * asynchronous ones cost a thread-pool hop and a promise each, most of a
 * big checkpoint's time), so it must let the event loop turn as it goes: in
 * a resident engine (serve, mcp) other callers are answered meanwhile. Over
 * one directory of 6,000 files (no directory to open between them, which
 * would turn the loop anyway), a timer keeps firing through the path walk
 * and through the comparison: the longest stretch without a tick is a small
 * part of each, not all of it; likewise while it digests big files, 1 MiB
 * at a time, in both views. A ratio within one run, not a time.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectPaths, compareBudget, compareViews } from '../../../../src/providers/native/tree-compare.js';

const root = mkdtempSync(join(tmpdir(), 'hs-compare-turns-'));
afterAll(() => void spawnSync('rm', ['-rf', root]));

/** Runs `work` with a 0 ms interval timer beside it: how long it took, and the longest stretch without a tick. */
async function stalls(work: () => Promise<void>): Promise<{ total: number; longest: number }> {
  const started = performance.now();
  let last = started;
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 0);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const ended = performance.now();
  return { total: ended - started, longest: Math.max(longest, ended - last) };
}

describe('a comparison of many entries', () => {
  it('lets timers fire throughout its walk and its reads', async () => {
    const before = join(root, 'before');
    const after = join(root, 'after');
    mkdirSync(before);
    mkdirSync(join(after, 'd'), { recursive: true });
    for (let f = 0; f < 6000; f++) writeFileSync(join(after, 'd', `f${f}`), `${f}`);
    const candidates = new Set<string>();
    const budget = compareBudget(64 * 1024 * 1024, 64 * 1024 * 1024);
    const walk = await stalls(() => collectPaths(after, candidates, budget));
    let found = 0;
    const compare = await stalls(async () => {
      found = (await compareViews(before, after, candidates, budget)).changes.length;
    });
    expect(found).toBe(6001);
    expect(walk.longest, `the walk's longest stall against its ${walk.total.toFixed(0)} ms`).toBeLessThan(walk.total / 3);
    expect(compare.longest, `the comparison's longest stall against its ${compare.total.toFixed(0)} ms`).toBeLessThan(compare.total / 3);
  });

  it('lets timers fire while it digests big files on both sides', async () => {
    // Two files changed in place: each is read and digested in both views, 1 MiB at a time. Counting reads as
    // entries let 256 MiB a view go by between turns, and a served call waited 2 s (red team, session 10).
    const before = join(root, 'big-before');
    const after = join(root, 'big-after');
    mkdirSync(before);
    mkdirSync(after);
    // Sparse (nothing to write or keep in memory here), and read and digested whole all the same.
    for (const name of ['a.bin', 'b.bin']) {
      writeFileSync(join(before, name), '');
      truncateSync(join(before, name), 64 * 1024 * 1024);
      writeFileSync(join(after, name), '');
      truncateSync(join(after, name), 65 * 1024 * 1024);
    }
    let found = 0;
    const compare = await stalls(async () => {
      found = (await compareViews(before, after, ['a.bin', 'b.bin'], compareBudget(256 * 1024 * 1024, 256 * 1024 * 1024))).changes.length;
    });
    expect(found).toBe(2);
    expect(compare.longest, `the longest stall against the comparison's ${compare.total.toFixed(0)} ms`).toBeLessThan(compare.total / 3);
  });
});
