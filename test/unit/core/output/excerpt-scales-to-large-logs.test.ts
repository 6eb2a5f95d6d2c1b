/**
 * Selection is linear in the size of the log and keeps only a few bytes of
 * bookkeeping per line: a 50 MB log is scored without materialising it as a
 * string, in bounded time and with bounded heap growth, and the error buried
 * in it is still found.
 */
import { describe, expect, it } from 'vitest';
import { selectExcerpt } from '../../../../src/core/output/select-excerpt.js';

function bigLog(bytes: number): Buffer {
  const line = Buffer.from('2024-06-01T12:00:00Z worker-3 processed record batch ok latency=12ms queue=0\n');
  const count = Math.ceil(bytes / line.length);
  const log = Buffer.alloc(count * line.length);
  for (let i = 0; i < count; i++) line.copy(log, i * line.length);
  Buffer.from('ERROR: lost shard 17 at record 31337'.padEnd(line.length - 1, ' ')).copy(log, Math.floor(count / 2) * line.length);
  return log;
}

describe('selectExcerpt at scale', () => {
  it('handles a 50 MB log in bounded time and memory, finding the buried error', { timeout: 60_000 }, () => {
    const log = bigLog(50 * 1024 * 1024);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const result = selectExcerpt(log, { budgetBytes: 6000, retrieval: 'headspace inspect job-big --logs' });
    const elapsed = performance.now() - started;
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(result.excerpt).toContain('ERROR: lost shard 17 at record 31337');
    expect(result.total_bytes).toBe(log.length);
    expect(Buffer.byteLength(result.excerpt)).toBeLessThanOrEqual(6000);
    // Generous bounds: they catch a quadratic scan or a whole-log string, not machine noise.
    expect(elapsed).toBeLessThan(20_000);
    expect(heapGrowth).toBeLessThan(200 * 1024 * 1024);
  });

  it('grows about linearly: four times the log takes well under sixteen times as long', () => {
    const small = bigLog(2 * 1024 * 1024);
    const large = bigLog(8 * 1024 * 1024);
    selectExcerpt(small, { budgetBytes: 6000 });
    // CPU time, best of three: wall time on a shared machine measures the neighbours, not us.
    const time = (log: Buffer) =>
      Math.min(
        ...[1, 2, 3].map(() => {
          const started = process.cpuUsage();
          selectExcerpt(log, { budgetBytes: 6000 });
          const used = process.cpuUsage(started);
          return (used.user + used.system) / 1000;
        }),
      );
    const ratio = time(large) / Math.max(1, time(small));
    expect(ratio).toBeLessThan(10);
  });
});
