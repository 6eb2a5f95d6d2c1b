/**
 * `inspect --logs` on a terminal streams job output through an escaper that
 * shows ESC, C0/C1 controls (except \n and \t) and bidi characters as
 * escapes (#10 item 10). It works chunk by chunk, so a UTF-8 character cut
 * between two reads must come out whole, and text without controls must
 * come out unchanged.
 */
import { describe, expect, it } from 'vitest';
import { createTerminalEscaper } from '../../../src/cli/terminal-output.js';

function through(chunks: Buffer[]): string {
  const escaper = createTerminalEscaper();
  return chunks.map((c) => escaper.write(c)).join('') + escaper.end();
}

describe('the terminal escaper', () => {
  it('shows OSC 52, title and hyperlink sequences as text', () => {
    const out = through([Buffer.from('\x1b]52;c;Zm9v\x07 \x1b]0;title\x07 \x1b]8;;http://x\x07link\x1b]8;;\x07\n')]);
    expect(out).toBe('\\x1b]52;c;Zm9v\\x07 \\x1b]0;title\\x07 \\x1b]8;;http://x\\x07link\\x1b]8;;\\x07\n');
    expect(out).not.toContain('\x1b');
  });

  it('keeps a character split across chunks whole, and plain text unchanged', () => {
    const bytes = Buffer.from('π = 3.14\tok\n\u202e');
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(through([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe('π = 3.14\tok\n\\u202e');
    }
  });
});
