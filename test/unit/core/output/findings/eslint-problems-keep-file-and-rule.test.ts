/**
 * ESLint's stylish report gives each problem the file from the header above
 * it, its line:col, severity, message and rule; a parse error has no rule.
 * Problem-shaped lines outside a file block are not ESLint's.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('eslint findings', () => {
  it('reads every problem under its file, errors first', () => {
    const app = '/tmp/headspace-findings/eslint/src/app.js';
    expect(parseFindings(readFixture('eslint', 'stylish'), { maxItems: 10 })).toEqual([
      {
        kind: 'diagnostics',
        tool: 'eslint',
        errors: 4,
        warnings: 2,
        more: 0,
        items: [
          { file: app, line: 2, col: 7, severity: 'error', code: 'no-unused-vars', message: "'unusedHelper' is assigned a value but never used" },
          { file: app, line: 6, col: 12, severity: 'error', code: 'no-undef', message: "'undefinedThing' is not defined" },
          { file: app, line: 8, col: 18, severity: 'error', code: 'no-dupe-keys', message: "Duplicate key 'a'" },
          { file: '/tmp/headspace-findings/eslint/src/util.js', line: 2, col: 20, severity: 'error', code: 'no-undef', message: "'extra' is not defined" },
          { file: app, line: 1, col: 5, severity: 'warning', code: 'prefer-const', message: "'limit' is never reassigned. Use 'const' instead" },
          { file: app, line: 5, col: 13, severity: 'warning', code: 'eqeqeq', message: "Expected '===' and instead saw '=='" },
        ],
      },
    ]);
  });

  it('reads a parse error, which names no rule', () => {
    const log = ['', '/w/src/bad.js', '  3:9  error  Parsing error: Unexpected token }', '', '✖ 1 problem (1 error, 0 warnings)'].join('\n');
    expect(parseFindings(log, { maxItems: 5 })).toMatchObject([
      { tool: 'eslint', items: [{ file: '/w/src/bad.js', line: 3, col: 9, message: 'Parsing error: Unexpected token }' }] },
    ]);
  });

  it('ignores problem-shaped lines after a blank line', () => {
    expect(parseFindings(['some text', '', '  3:9  error  not from eslint  rule'].join('\n'), { maxItems: 5 })).toEqual([]);
  });
});
