/**
 * A job chooses the names of the files it writes, so a name printed for a
 * person must not act on the screen: `payload.sh\rreport.json` printed raw
 * reads `report.json`, a newline forges a listing entry, ESC starts a
 * terminal sequence and U+202E reverses what follows (#10 item 11). Such a
 * name is shown in the file name text form (core/name-text.ts: every such
 * character an escape, a backslash `\\`), which decodes back to the real
 * name's bytes and is what export and declare accept; a plain name is shown
 * as it is.
 */
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../../../src/core/result/shell-quote.js';
import { displayHostPath, displayName, escapeForTerminal, quotedName } from '../../../../src/core/result/visible-text.js';
import { nameBytes, stringText } from '../../../../src/core/name-text.js';
import { cleanInline, cleanProse } from '../../../../src/core/result/sanitize-text.js';

const HOSTILE = ['payload.sh\rreport.json', 'a\n- report.json', 'x\x1b]52;c;Zm9v\x07.txt', 'invoice\u202etxt.exe', 'back\\slash', 'c1\u009b31m'];
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('job-chosen names', () => {
  it('pass through unchanged when plain', () => {
    expect(displayName('out/report v2.json')).toBe('out/report v2.json');
    expect(displayName('"quoted"')).toBe('"quoted"');
    expect(quotedName('out/report.json')).toBe("'out/report.json'");
  });

  it.each(HOSTILE)('show %j with no raw control, newline or bidi character, and decode back to the real name', (name) => {
    const shown = displayName(stringText(name));
    expect(shown).not.toMatch(RAW);
    expect(shown).not.toContain('\n');
    expect(shown).not.toBe(name);
    expect(nameBytes(shown)).toEqual(Buffer.from(name));
    expect(quotedName(stringText(name))).toBe(`'${shown}'`);
    expect(displayHostPath(name)).toBe(shown);
  });

  it('show a record that is not in the text form as the text form of its bytes', () => {
    expect(displayName('payload.sh\rreport.json')).toBe('payload.sh\\rreport.json');
    expect(displayName('legacy\\q')).toBe('legacy\\\\q');
  });

  it('are never collapsed to what a terminal would draw last', () => {
    expect(displayName(stringText('payload.sh\rreport.json'))).toBe('payload.sh\\rreport.json');
    expect(cleanProse('payload.sh\rreport.json')).not.toBe('report.json');
    expect(cleanInline('payload.sh\rreport.json')).toBe('payload.sh\u240dreport.json');
  });

  it('shows bidi characters in markdown text as escapes', () => {
    expect(cleanInline('invoice\u202etxt.exe')).toBe('invoice\\u202etxt.exe');
  });

  it("quote for a pasted command as $'…' with every control and bidi character escaped", () => {
    expect(shellQuote('a\n- b')).toBe("$'a\\n- b'");
    expect(shellQuote('invoice\u202etxt.exe')).toBe("$'invoice\\u202etxt.exe'");
    expect(shellQuote("it's\x1b")).toBe("$'it\\'s\\x1b'");
  });

  it('make terminal text visible except newline and tab', () => {
    expect(escapeForTerminal('a\x1b[31m\tb\r\n\u202e\u009b')).toBe('a\\x1b[31m\tb\\r\n\\u202e\\x9b');
  });
});
