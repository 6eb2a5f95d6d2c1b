/**
 * Past the output budget, the log kept only the output's first bytes, so a
 * job that printed its answer after a flood lost it for good (new user: 21 MB
 * of rows, then "FINAL ANSWER: 42"). It now keeps the first bytes, a line
 * marking the gap, and the output's last lines (the budget's last sixteenth),
 * never more than the budget; within the budget the log is the output, byte
 * for byte; and the kept digest is of the log as written.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openOutputSink } from '../../../../src/core/output/output-sink.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function sinkIn(budget: number) {
  dir = mkdtempSync(join(tmpdir(), 'hs-sink-'));
  const path = join(dir, 'job.log');
  return { sink: openOutputSink(path, budget), read: () => readFileSync(path) };
}

const rows = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `row ${i}\n`).join(''));

describe('a log past its output budget', () => {
  it('keeps the first bytes, a marked gap and the last lines, within the budget', () => {
    const budget = 64 * 1024;
    const { sink, read } = sinkIn(budget);
    const flood = rows(100_000);
    // In uneven chunks, as pipes deliver them.
    for (let at = 0; at < flood.length; at += 4093) sink.write('stdout', flood.subarray(at, at + 4093));
    sink.write('stderr', Buffer.from('FINAL ANSWER: 42\n'));
    sink.close();
    const log = read();
    const text = log.toString();
    expect(text.startsWith('row 0\nrow 1\n')).toBe(true);
    expect(text.endsWith('row 99999\nFINAL ANSWER: 42\n')).toBe(true);
    expect(text).toMatch(/\n…\[\d+ bytes not kept: the output budget keeps the first \d+ and the last \d+ bytes\]…\n/);
    // Whole lines after the gap: the first line after the marker is a whole row.
    const afterGap = text.slice(text.indexOf(']…\n') + 3).split('\n')[0]!;
    expect(afterGap).toMatch(/^row \d+$/);
    expect(log.length).toBeLessThanOrEqual(budget);
    expect(sink.storedBytes).toBe(log.length);
    expect(sink.totalBytes).toBe(flood.length + 17);
    expect(sink.truncated).toBe(true);
    expect(sink.keptSha256).toBe(`sha256:${createHash('sha256').update(log).digest('hex')}`);
    const [, gap, first, last] = /…\[(\d+) bytes not kept: the output budget keeps the first (\d+) and the last (\d+) bytes\]…/.exec(text)!.map(Number);
    expect(gap! + first! + last!).toBe(sink.totalBytes);
  });

  it('is the output byte for byte while the output fits the budget, past the head too', () => {
    const budget = 64 * 1024;
    const { sink, read } = sinkIn(budget);
    const output = rows(9_000).subarray(0, budget - 10);
    sink.write('stdout', output);
    sink.close();
    expect(read().equals(output)).toBe(true);
    expect(sink.truncated).toBe(false);
    expect(sink.kept()!.equals(output)).toBe(true);
  });

  it('keeps only the first bytes under a budget too small to share', () => {
    const { sink, read } = sinkIn(4096);
    sink.write('stdout', rows(2_000));
    sink.close();
    expect(read().toString()).toBe(rows(2_000).subarray(0, 4096).toString());
  });
});
