/**
 * The redactor-oracle probe's judge (red team, session 12), on hand-written
 * facts: a job that learned the two characters after the four it was told,
 * from which echoed answers came back masked, escaped (the evidence never
 * shows them); one that learned one at most, its later guesses unanswered,
 * is contained; one whose guesses were never answered, or whose run carried
 * no secret, tested nothing and is skipped.
 */
import { describe, expect, it } from 'vitest';
import { egressRedactorOracle } from '../../../../src/core/probe/scenarios-egress-redactor-oracle.js';
import { job } from './facts.js';

const main = job('probe-done\n');
const VALUE = 'hsora7dca940d1f7a38d2b328bb0';
const side = (output: string) => ({ output: `${output}probe-done\n`, exitCode: 0, decisions: [] });
const guesses = (step: number, upTo: string, last: string) =>
  [...'0123456789abcdef'.slice(0, '0123456789abcdef'.indexOf(upTo))].map((c) => `answer: ${step} ${c} False\n`).join('') + `answer: ${step} ${upTo} ${last}\n`;

describe('the redactor-oracle probe judge', () => {
  it('calls two characters learned past the known ones an escape, never showing them', () => {
    const verdict = egressRedactorOracle.judge(main, { side: side(`${guesses(0, 'a', 'True')}${guesses(1, '7', 'True')}learned: a7\n`), value: VALUE });
    expect(verdict.verdict).toBe('escaped');
    expect(JSON.stringify(verdict)).not.toContain('a7');
  });

  it('is contained when the job learned one character at most, its later guesses unanswered', () => {
    const cut = [...'0123456789abcdef'].map((c) => `answer: 1 ${c} None\n`).join('');
    expect(egressRedactorOracle.judge(main, { side: side(`${guesses(0, 'a', 'True')}${cut}learned: a?\n`), value: VALUE }).verdict).toBe('contained');
    expect(egressRedactorOracle.judge(main, { side: side(`${guesses(0, 'f', 'None')}learned: ?\n`), value: VALUE }).verdict).toBe('contained');
  });

  it('is skipped when no guess was answered, or the run carried no secret', () => {
    const none = [...'0123456789abcdef'].map((c) => `answer: 0 ${c} None\n`).join('');
    expect(egressRedactorOracle.judge(main, { side: side(`${none}learned: ?\n`), value: VALUE }).verdict).toBe('skipped');
    expect(egressRedactorOracle.judge(main, { side: side('no placeholder in the environment\n'), value: VALUE }).verdict).toBe('skipped');
    expect(egressRedactorOracle.judge(main, { side: { refused: 'POLICY_DENIED', at: 'run' }, value: VALUE }).verdict).toBe('skipped');
  });
});
