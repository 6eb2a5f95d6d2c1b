/**
 * --env-file reads strict NAME=VALUE lines: blank lines and # comments are
 * skipped, nothing is unquoted or trimmed, `export` is not accepted, and a
 * bad line is refused by file name and 1-based line number — never quoted.
 */
import { describe, expect, it } from 'vitest';
import { parseEnvFile } from '../../../../src/core/files/env-file.js';

describe('env files', () => {
  it('reads assignments verbatim and skips blanks and comments', () => {
    expect(parseEnvFile('# comment\n\nA=1\nB="quoted stays"\nC= spaced \nD=x=y\n', 'f.env')).toEqual({ A: '1', B: '"quoted stays"', C: ' spaced ', D: 'x=y' });
  });

  it('refuses a malformed line by file and line number without quoting it', () => {
    for (const [text, line] of [
      ['A=1\nexport B=hunter2\n', 2],
      ['A=1\n\n# ok\nnot an assignment hunter2\n', 4],
      ['=hunter2\n', 1],
      ['1BAD=hunter2\n', 1],
    ] as const) {
      try {
        parseEnvFile(text, 'secrets.env');
        expect.unreachable();
      } catch (error) {
        const e = error as { code: string; message: string; hint: string };
        expect(e.code).toBe('BAD_ARGUMENT');
        expect(e.message).toBe(`secrets.env, line ${line}: not a NAME=VALUE assignment`);
        expect(`${e.message} ${e.hint}`).not.toContain('hunter2');
      }
    }
  });
});
