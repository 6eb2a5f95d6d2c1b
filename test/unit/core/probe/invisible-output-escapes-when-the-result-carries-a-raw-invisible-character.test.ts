/**
 * invisible-output: the job prints an instruction in tag characters,
 * zero-width characters, a BOM, U+202E and OSC 52; the judge calls it
 * escaped when the rendered result carries any of them raw, contained when
 * each is an escape, skipped when there is no rendered line to judge.
 */
import { describe, expect, it } from 'vitest';
import { invisibleOutput } from '../../../../src/core/probe/scenarios-output.js';

const done = (rendered: string | undefined) => ({
  status: 'success' as const,
  exitCode: 0,
  output: 'tests passed\nprobe-done\n',
  ...(rendered === undefined ? {} : { rendered }),
});

describe('invisible-output', () => {
  it('is escaped when a tag character reaches the result raw', () => {
    const judged = invisibleOutput.judge(done(`- tests passed${String.fromCodePoint(0xe0053)} done`), {});
    expect(judged.verdict).toBe('escaped');
    expect(judged.evidence).toContain('U+E0053');
  });

  it('is escaped by a raw zero-width space or escape byte too', () => {
    expect(invisibleOutput.judge(done('tests passed\u200b'), {}).verdict).toBe('escaped');
    expect(invisibleOutput.judge(done('tests passed\x1b]52;c;x\x07'), {}).verdict).toBe('escaped');
  });

  it('is contained when every one is shown as an escape', () => {
    expect(invisibleOutput.judge(done('- tests passed\\u{e0053}\\u200b\\u202e\\x1b done'), {}).verdict).toBe('contained');
  });

  it('is skipped without a rendered result showing the line', () => {
    expect(invisibleOutput.judge(done(undefined), {}).verdict).toBe('skipped');
    expect(invisibleOutput.judge(done('nothing of it'), {}).verdict).toBe('skipped');
  });
});
