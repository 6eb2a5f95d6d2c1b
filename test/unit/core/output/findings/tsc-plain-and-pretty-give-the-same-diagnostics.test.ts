/**
 * tsc's diagnostics read the same from its plain `file(line,col): error TSxxxx:`
 * form and its coloured `--pretty` `file:line:col - error TSxxxx:` form.
 */
import { describe, expect, it } from 'vitest';
import { findingLines, parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('tsc findings', () => {
  for (const name of ['plain', 'pretty']) {
    it(`reads every error of the ${name} form with file, line, column and code`, () => {
      const findings = parseFindings(readFixture('tsc', name), { maxItems: 10 });
      expect(findings).toEqual([
        {
          kind: 'diagnostics',
          tool: 'tsc',
          errors: 5,
          warnings: 0,
          more: 0,
          items: [
            { file: 'src/a.ts', line: 1, col: 14, severity: 'error', code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
            { file: 'src/a.ts', line: 4, col: 27, severity: 'error', code: 'TS2554', message: 'Expected 0 arguments, but got 1.' },
            { file: 'src/a.ts', line: 8, col: 18, severity: 'error', code: 'TS2339', message: "Property 'name' does not exist on type '{ id: number; }'." },
            {
              file: 'src/b.ts',
              line: 1,
              col: 25,
              severity: 'error',
              code: 'TS2307',
              message: "Cannot find module './nowhere.js' or its corresponding type declarations.",
            },
            { file: 'src/b.ts', line: 4, col: 32, severity: 'error', code: 'TS2454', message: "Variable 'unused' is used before being assigned." },
          ],
        },
      ]);
      expect(findingLines(findings)[1]).toBe("error src/a.ts:1:14 TS2322 Type 'string' is not assignable to type 'number'.");
    });
  }
});
