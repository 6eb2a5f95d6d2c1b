/**
 * cargo test's failures carry the panic's file:line:col and message (with
 * assert_eq!'s two sides), and the counts of every `test result:` line.
 * Panics in both the current format and the one before Rust 1.73 are read.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('cargo test findings', () => {
  it('reads a failing cargo test run', () => {
    expect(parseFindings(readFixture('cargo-test', 'default'), { maxItems: 10 })).toEqual([
      {
        kind: 'test-summary',
        tool: 'cargo test',
        failed: 2,
        passed: 2,
        skipped: 1,
        more: 0,
        failures: expect.arrayContaining([
          { name: 'tests::above', location: { file: 'src/lib.rs', line: 16, col: 9 }, message: 'assertion `left == right` failed (left: 0, right: 10)' },
          { name: 'tests::below_panics', location: { file: 'src/lib.rs', line: 22, col: 18 }, message: 'index out of bounds: the len is 0 but the index is 0' },
        ]),
      },
    ]);
  });

  it('reads the panic format of Rust before 1.73', () => {
    const log = [
      'running 1 test',
      'test tests::old ... FAILED',
      '',
      'failures:',
      '',
      '---- tests::old stdout ----',
      "thread 'tests::old' panicked at 'boom here', src/lib.rs:4:5",
      '',
      'test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
    ].join('\n');
    const [summary] = parseFindings(log, { maxItems: 5 });
    expect(summary).toMatchObject({
      failed: 1,
      passed: 0,
      failures: [{ name: 'tests::old', location: { file: 'src/lib.rs', line: 4, col: 5 }, message: 'boom here' }],
    });
  });
});
