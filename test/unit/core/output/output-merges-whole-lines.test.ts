/**
 * The job log merges stdout and stderr a whole line at a time, so a line
 * from one stream is never spliced into the middle of a line from the other;
 * it keeps at most the budget and counts every byte.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openOutputSink } from '../../../../src/core/output/output-sink.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('output sink', () => {
  it('keeps an error line whole when it arrives between two halves of another line', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-sink-'));
    const sink = openOutputSink(join(dir, 'log'), 1 << 20);
    sink.write('stdout', Buffer.from('step 1: fine\nstep 2: fi'));
    sink.write('stderr', Buffer.from('fatal: drift\n'));
    sink.write('stdout', Buffer.from('ne\nstep 3: fine'));
    sink.close();
    expect(readFileSync(join(dir, 'log'), 'utf8').split('\n')).toEqual(['step 1: fine', 'fatal: drift', 'step 2: fine', 'step 3: fine']);
  });

  it('stores at most the budget, counts everything and says it truncated', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-sink-'));
    const sink = openOutputSink(join(dir, 'log'), 100);
    for (let i = 0; i < 10; i++) sink.write('stdout', Buffer.from(`${'x'.repeat(49)}\n`));
    sink.close();
    expect(sink.totalBytes).toBe(500);
    expect(sink.storedBytes).toBe(100);
    expect(readFileSync(join(dir, 'log')).length).toBe(100);
    expect(sink.truncated).toBe(true);
  });
});
