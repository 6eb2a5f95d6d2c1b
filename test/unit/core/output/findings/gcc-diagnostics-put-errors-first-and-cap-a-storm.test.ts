/**
 * gcc's diagnostics list errors before warnings whatever order they were
 * printed in, take `[-Wflag]` as the code, ignore notes, and a storm of 200
 * errors becomes a total and the first N.
 */
import { describe, expect, it } from 'vitest';
import { findingLines, parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('gcc findings', () => {
  it('lists errors first, then warnings with their flag', () => {
    expect(parseFindings(readFixture('gcc', 'small'), { maxItems: 10 })).toEqual([
      {
        kind: 'diagnostics',
        tool: 'gcc/clang',
        errors: 2,
        warnings: 3,
        more: 0,
        items: [
          { file: 'small.c', line: 5, col: 17, severity: 'error', message: 'expected ‘;’ before ‘}’ token' },
          { file: 'small.c', line: 10, col: 27, severity: 'error', message: '‘undeclared’ undeclared (first use in this function)' },
          { file: 'small.c', line: 4, col: 9, severity: 'warning', code: '-Wunused-variable', message: 'unused variable ‘unused’' },
          {
            file: 'small.c',
            line: 9,
            col: 18,
            severity: 'warning',
            code: '-Wint-conversion',
            message: 'initialization of ‘char *’ from ‘int’ makes pointer from integer without a cast',
          },
          { file: 'small.c', line: 9, col: 11, severity: 'warning', code: '-Wunused-variable', message: 'unused variable ‘name’' },
        ],
      },
    ]);
  });

  it('counts a 200-error storm and lists the first N', () => {
    const [finding] = parseFindings(readFixture('gcc', 'storm'), { maxItems: 4 });
    expect(finding).toMatchObject({ kind: 'diagnostics', errors: 200, warnings: 0, more: 196 });
    expect(findingLines(finding ? [finding] : [])).toEqual([
      'diagnostics: 200 errors (gcc/clang)',
      'error storm.c:2:14 ‘missing_0’ undeclared (first use in this function)',
      'error storm.c:3:14 ‘missing_1’ undeclared (first use in this function)',
      'error storm.c:4:14 ‘missing_2’ undeclared (first use in this function)',
      'error storm.c:5:14 ‘missing_3’ undeclared (first use in this function)',
      '… and 196 more diagnostics (gcc/clang)',
    ]);
  });
});
