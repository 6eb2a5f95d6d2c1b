/**
 * The parsers read lines cleaned and bounded once: terminal escapes and
 * `\r` overwrites are gone, a line keeps its first MAX_LINE_CHARS characters,
 * and a log of more than MAX_LINES lines keeps its head and its tail (where
 * the summaries are), so a 64 MiB log costs bounded memory.
 */
import { describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, MAX_LINES, splitLines } from '../../../../../src/core/output/findings/finding-text.js';

describe('splitLines', () => {
  it('cleans escapes and carriage-return overwrites', () => {
    expect(splitLines('\x1b[31mred\x1b[0m\r\n10%\r100%\nlast')).toEqual(['red', '100%', 'last']);
  });

  it('cuts a long line to its first MAX_LINE_CHARS characters', () => {
    const [line] = splitLines(`${'x'.repeat(MAX_LINE_CHARS * 3)}\nnext`);
    expect(line).toHaveLength(MAX_LINE_CHARS);
  });

  it('keeps the head and the tail of a log with too many lines', () => {
    const total = MAX_LINES + 5000;
    const text = Array.from({ length: total }, (_, i) => `line ${i}`).join('\n');
    const lines = splitLines(text);
    expect(lines.length).toBeLessThanOrEqual(MAX_LINES + 1);
    expect(lines[0]).toBe('line 0');
    expect(lines.at(-1)).toBe(`line ${total - 1}`);
    expect(lines).toContain(`line ${MAX_LINES / 2 - 1}`);
    expect(lines).not.toContain(`line ${MAX_LINES / 2 + 100}`);
  });
});
