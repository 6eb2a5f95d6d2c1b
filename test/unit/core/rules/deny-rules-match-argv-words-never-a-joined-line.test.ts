/**
 * A deny-command rule matches the parsed argv (#16): its first word against
 * argv[0] or argv[0]'s base name, each further word against some argument,
 * whole — never a substring of the command line joined into text. Checked
 * against a plain reference model on random argv and rules (seeded,
 * bounded), with globs left out so the model is exact.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denyMatches, parseRule, runsShellScript } from '../../../../src/core/rules/rule-text.js';

const word = fc.string({ unit: fc.constantFrom('r', 'm', '-', 'f', 'x'), minLength: 1, maxLength: 3 });
const program = fc.tuple(fc.constantFrom('', '/usr/bin/', './'), word).map(([dir, name]) => dir + name);

function reference(words: string[], argv: string[]): boolean {
  const first = argv[0]!;
  const base = first.slice(first.lastIndexOf('/') + 1);
  return (words[0] === first || words[0] === base) && words.slice(1).every((w) => argv.slice(1).includes(w));
}

describe('deny-command matching', () => {
  it('agrees with the word-by-word reference on random argv and rules', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), program, fc.array(word, { maxLength: 4 }), (words, first, args) => {
        const argv = [first, ...args];
        expect(denyMatches(words, argv)).toBe(reference(words, argv));
      }),
      { seed: 16, numRuns: 500 },
    );
  });

  it('never matches a word hidden inside one argument', () => {
    expect(denyMatches(['rm', '-rf'], ['echo', 'rm -rf /'])).toBe(false);
    expect(denyMatches(['rm', '-rf'], ['rm', '-rfv', 'x'])).toBe(false);
    expect(denyMatches(['rm', '-rf*'], ['rm', '-rfv', 'x'])).toBe(true);
  });

  it('keeps its canonical text, quoting words that need it', () => {
    expect(parseRule("deny-command:  git   push '--force with space'").text).toBe("deny-command:git push '--force with space'");
    expect(parseRule('error-rate:3/10:block').text).toBe('error-rate:3/10:block');
  });

  it('knows a shell script when it sees one, whatever the shell is called', () => {
    expect(runsShellScript(['/bin/bash', '-lc', 'rm x'])).toBe(true);
    expect(runsShellScript(['sh', '-c', 'x'])).toBe(true);
    expect(runsShellScript(['sh', 'script.sh'])).toBe(false);
    expect(runsShellScript(['python3', '-c', 'x'])).toBe(false);
  });
});
