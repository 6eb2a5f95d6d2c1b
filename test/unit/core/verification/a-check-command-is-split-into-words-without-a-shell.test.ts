/**
 * `run --verify 'CMD'` and deny rules take a command as one line of text,
 * split into argv by POSIX quoting only — never given to a shell. Any argv,
 * quoted as results print it, splits back into itself (a seeded, bounded
 * property); shell operators outside quotes are refused, not passed on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommandWords } from '../../../../src/core/verification/command-words.js';
import { shellJoin } from '../../../../src/core/result/markdown-sections.js';

describe('splitting a command line into words', () => {
  it('splits on blanks and honours single quotes, double quotes and backslashes', () => {
    expect(splitCommandWords(`python3 -c 'print("a b")' "x \\"y\\"" z\\ w`, '--verify')).toEqual(['python3', '-c', 'print("a b")', 'x "y"', 'z w']);
  });

  it('expands nothing: $ in quotes, globs and tildes stay as written', () => {
    expect(splitCommandWords(`ls *.txt ~ '$HOME'`, '--verify')).toEqual(['ls', '*.txt', '~', '$HOME']);
  });

  it('refuses shell operators outside quotes, pointing at sh -c', () => {
    for (const line of ['test -f a && cat a', 'cat a | wc', 'echo $HOME', 'a; b', 'cat < f', 'x > y', 'echo `id`'])
      expect(() => splitCommandWords(line, '--verify'), line).toThrow(/shell operator/);
  });

  it('refuses unclosed quotes and an empty command', () => {
    expect(() => splitCommandWords(`echo 'a`, '--verify')).toThrow(/unclosed single quote/);
    expect(() => splitCommandWords(`echo "a`, '--verify')).toThrow(/unclosed double quote/);
    expect(() => splitCommandWords('   ', '--verify')).toThrow(/no command/);
  });

  it('gives back any printable argv from its quoted form', () => {
    const word = fc.string({ unit: fc.constantFrom(...'ab -_./\'"\\*?$|&;<>()`~=:'.split('')), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (argv) => {
        expect(splitCommandWords(shellJoin(argv), '--verify')).toEqual(argv);
      }),
      { seed: 16, numRuns: 300 },
    );
  });
});
