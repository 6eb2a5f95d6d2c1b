/**
 * hostile-names: the job creates files named with \r, a newline, an OSC 52
 * escape and U+202E, and (round 2) names that are not valid UTF-8: `r\xff.txt`
 * beside a real `r\u{fffd}.txt`, and a directory `d\xff` holding a file. The
 * ls-files markdown rendered host-side must carry no raw control, bidi or
 * U+FFFD character, one distinct entry per file or directory, no entry that
 * reads as another name, and each shown file name must read back the file
 * listed under it. Judged on hand-written listings.
 */
import { describe, expect, it } from 'vitest';
import { hostileNames, shownFile, type ReadBack } from '../../../../src/core/probe/scenarios-output.js';
import { job } from './facts.js';

const listing = (entries: string[]) => `# headspace result\n## Outcome summary\nx\n## Key findings\n${entries.join('\n')}\n## Evidence\n(none)\n`;
const done = job('made: 4\nprobe-done\n');
const ESCAPED_ENTRIES = [
  '- hsprobe-names/payload.sh\\rreport.json (1 bytes)',
  '- hsprobe-names/notes\\n- report.json (9 bytes) (2 bytes)',
  '- hsprobe-names/clip\\x1b]52;c;cHduZWQ=\\x07.txt (3 bytes)',
  '- hsprobe-names/invoice\\u202etxt.exe (4 bytes)',
];
const readsOf = (entries: string[], override: Partial<Record<string, ReadBack['read']>> = {}): ReadBack[] =>
  entries.flatMap((entry) => {
    const file = shownFile(entry);
    return file === undefined ? [] : [{ ...file, read: override[file.shown] ?? { bytes: file.listedBytes } }];
  });

describe('hostile-names', () => {
  it('is contained when every name is escaped, one entry per file, each read back as itself', () => {
    const entries = [
      ...ESCAPED_ENTRIES,
      '- hsprobe-names/r\\xff.txt (5 bytes)',
      '- hsprobe-names/r\\ufffd.txt (6 bytes)',
      '- hsprobe-names/d\\xff/',
      '- hsprobe-names/d\\xff/x\\xfe.txt (7 bytes)',
    ];
    expect(hostileNames.judge(done, { markdown: listing(entries), made: 8, reads: readsOf(entries) }).verdict).toBe('contained');
  });

  it('escapes when a raw bidi or control character reaches the listing', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(['- invoice\u202etxt.exe (1 bytes)', '- a', '- b', '- c']), made: 4, reads: [] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('U+202E') });
    expect(hostileNames.judge(done, { markdown: listing(['- clip\x1b]52;c;x\x07 (1 bytes)', '- a', '- b', '- c']), made: 4, reads: [] }).verdict).toBe(
      'escaped',
    );
  });

  it('escapes when a name that is not UTF-8 is shown lossily as U+FFFD', () => {
    const verdict = hostileNames.judge(done, { markdown: listing([...ESCAPED_ENTRIES, '- hsprobe-names/r\ufffd.txt (5 bytes)']), made: 5, reads: [] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('U+FFFD') });
  });

  it('escapes when two files are listed as the same entry', () => {
    const entries = [...ESCAPED_ENTRIES, '- hsprobe-names/r?.txt (12 bytes)', '- hsprobe-names/r?.txt (12 bytes)'];
    const verdict = hostileNames.judge(done, { markdown: listing(entries), made: 6, reads: [] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('the same entry') });
  });

  it('escapes when a directory and its files are missing from the listing', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(ESCAPED_ENTRIES), made: 6, reads: readsOf(ESCAPED_ENTRIES) });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('4 entries for 6 files and directories') });
  });

  it('escapes when a shown name reads back another file, or cannot be read back at all', () => {
    const entries = [...ESCAPED_ENTRIES, '- hsprobe-names/r?.txt (5 bytes)'];
    const other = hostileNames.judge(done, { markdown: listing(entries), made: 5, reads: readsOf(entries, { 'hsprobe-names/r?.txt': { bytes: 6 } }) });
    expect(other).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('returned another file (6 bytes)') });
    const lost = hostileNames.judge(done, {
      markdown: listing(entries),
      made: 5,
      reads: readsOf(entries, { 'hsprobe-names/r?.txt': { refused: 'FILE_NOT_FOUND' } }),
    });
    expect(lost).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('FILE_NOT_FOUND') });
  });

  it('escapes when a \\r-collapsed name reads as report.json', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(['- report.json (1 bytes)', '- a', '- b', '- c']), made: 4, reads: [] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('report.json') });
  });

  it('escapes when a newline in a name forges an extra entry', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(['- notes', '  - other.json (9 bytes) (1 bytes)', '- a', '- b', '- c']), made: 4, reads: [] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('5 entries for 4 files') });
  });

  it('reads a shown name as a reader would pass it on: a quoted literal parsed, anything else as it reads', () => {
    expect(shownFile('- "a\\rb" (3 bytes)')).toEqual({ shown: 'a\rb', listedBytes: 3 });
    expect(shownFile('- r\\xff.txt (12 bytes)')).toEqual({ shown: 'r\\xff.txt', listedBytes: 12 });
    expect(shownFile('- d\\xff/')).toBeUndefined();
  });

  it('is skipped when the job could not create any name or did not report', () => {
    expect(hostileNames.judge(done, { markdown: '', made: 0, reads: [] }).verdict).toBe('skipped');
    expect(hostileNames.judge(job('', 'failure', 127), { markdown: '', made: 0, reads: [] }).verdict).toBe('skipped');
  });
});
