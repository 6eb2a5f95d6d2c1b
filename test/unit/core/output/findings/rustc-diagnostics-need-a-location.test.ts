/**
 * rustc's `error[E0308]:` and `warning:` headers are diagnostics when the
 * next line gives ` --> file:line:col`; cargo's closing `error: could not
 * compile` and `warning: … generated 1 warning` are not.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('rustc findings', () => {
  it('reads type errors with their code and location', () => {
    expect(parseFindings(readFixture('rustc', 'badcrate'), { maxItems: 10 })).toEqual([
      {
        kind: 'diagnostics',
        tool: 'rustc',
        errors: 4,
        warnings: 0,
        more: 0,
        items: [
          { file: 'src/main.rs', line: 9, col: 20, severity: 'error', code: 'E0425', message: 'cannot find value `totl` in this scope' },
          { file: 'src/main.rs', line: 3, col: 5, severity: 'error', code: 'E0308', message: 'mismatched types' },
          { file: 'src/main.rs', line: 7, col: 22, severity: 'error', code: 'E0308', message: 'mismatched types' },
          { file: 'src/main.rs', line: 8, col: 26, severity: 'error', code: 'E0308', message: 'mismatched types' },
        ],
      },
    ]);
  });

  it('reads a borrow error and a lint warning, not the summary lines', () => {
    expect(parseFindings(readFixture('rustc', 'warncrate'), { maxItems: 10 })).toEqual([
      {
        kind: 'diagnostics',
        tool: 'rustc',
        errors: 1,
        warnings: 1,
        more: 0,
        items: [
          {
            file: 'src/lib.rs',
            line: 4,
            col: 5,
            severity: 'error',
            code: 'E0502',
            message: 'cannot borrow `*words` as mutable because it is also borrowed as immutable',
          },
          { file: 'src/lib.rs', line: 2, col: 9, severity: 'warning', message: 'unused variable: `unused`' },
        ],
      },
    ]);
  });
});
