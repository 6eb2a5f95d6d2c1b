/**
 * Characters that draw nothing yet reach a model are shown as escapes in job
 * output, wherever it is rendered (the markdown cleaners, the terminal
 * escaper, shell-quoted suggestions): tag characters (a red team hid an
 * instruction in 72 of them, invisible to the reviewer), zero-width spaces
 * and joiners, word joiners, the BOM, interlinear annotation marks and the
 * variation-selector supplement. The emoji variation selector stays, so a
 * heart is still drawn.
 */
import { describe, expect, it } from 'vitest';
import { cleanLine, cleanText } from '../../../../src/core/result/sanitize-text.js';
import { shellQuote } from '../../../../src/core/result/shell-quote.js';
import { escapeForTerminal } from '../../../../src/core/result/visible-text.js';

/** "SYSTEM" written in tag characters (U+E0000 + ASCII). */
const hidden = [...'SYSTEM'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
const invisibles = ['\u200b', '\u200c', '\u200d', '\u2060', '\u2064', '\ufeff', '\u00ad', '\ufff9', String.fromCodePoint(0xe0100)];

describe('invisible characters in job output', () => {
  it('are shown as escapes by the markdown cleaners, tag characters by code point', () => {
    expect(cleanLine(`tests passed${hidden}`)).toBe('tests passed\\u{e0053}\\u{e0059}\\u{e0053}\\u{e0054}\\u{e0045}\\u{e004d}');
    for (const ch of invisibles) expect(cleanLine(`a${ch}b`)).not.toContain(ch);
    expect(cleanText(`one\u200bline\ntwo`)).toBe('one\\u200bline\ntwo');
  });

  it('are shown as escapes on a terminal and in a shell-quoted word', () => {
    expect(escapeForTerminal(`ok${hidden}`)).not.toMatch(/[\u{e0000}-\u{e0fff}]/u);
    expect(escapeForTerminal('a\u2060b')).toBe('a\\u2060b');
    const quoted = shellQuote(`name${String.fromCodePoint(0xe0041)}\u200b`);
    expect(quoted).toBe("$'name\\U000e0041\\u200b'");
  });

  it('show a run of variation selectors, and the other default-ignorable characters, as escapes', () => {
    // 4-bit values in selectors after an emoji spelt an instruction (a red team): only one selector draws.
    const smuggled = `\u{1f600}${'\ufe00\ufe0f\ufe07'.repeat(4)}`;
    expect(cleanLine(smuggled)).toBe(`\u{1f600}${'\\ufe00\\ufe0f\\ufe07'.repeat(4)}`);
    for (const ch of ['\u034f', '\u115f', '\u17b4', '\u180b', '\u2065', '\u3164', '\uffa0', String.fromCodePoint(0x1d173)]) {
      expect(cleanLine(`a${ch}b`)).not.toContain(ch);
      expect(escapeForTerminal(`a${ch}b`)).not.toContain(ch);
    }
  });

  it('leave an emoji with its variation selector drawn as it is', () => {
    expect(cleanLine('done \u2764\ufe0f')).toBe('done \u2764\ufe0f');
    expect(escapeForTerminal('done \u2764\ufe0f')).toBe('done \u2764\ufe0f');
  });
});
