/**
 * hostile-names: the job creates files named with \r, a newline, an OSC 52
 * escape and U+202E; the ls-files markdown rendered host-side must carry no
 * raw control or bidi character, one entry per file, and no entry that reads
 * as another name. Judged on hand-written listings.
 */
import { describe, expect, it } from 'vitest';
import { hostileNames } from '../../../../src/core/probe/scenarios-output.js';
import { job } from './facts.js';

const listing = (entries: string[]) => `# headspace result\n## Outcome summary\nx\n## Key findings\n${entries.join('\n')}\n## Evidence\n(none)\n`;
const done = job('made: 4\nprobe-done\n');

describe('hostile-names', () => {
  it('is contained when every name is escaped, one entry per file', () => {
    const markdown = listing(['- "hsprobe-names/payload.sh\\rreport.json" (1 bytes)', '- "hsprobe-names/notes\\n- report.json (9 bytes)" (1 bytes)', '- "hsprobe-names/clip\\u001b]52;c;cHduZWQ=\\u0007.txt" (1 bytes)', '- "hsprobe-names/invoice\\u202etxt.exe" (1 bytes)']);
    expect(hostileNames.judge(done, { markdown, made: 4 }).verdict).toBe('contained');
  });

  it('escapes when a raw bidi or control character reaches the listing', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(['- invoice\u202etxt.exe (1 bytes)', '- a', '- b', '- c']), made: 4 });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('U+202E') });
    expect(hostileNames.judge(done, { markdown: listing(['- clip\x1b]52;c;x\x07 (1 bytes)', '- a', '- b', '- c']), made: 4 }).verdict).toBe('escaped');
  });

  it('escapes when a \\r-collapsed name reads as report.json', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(['- report.json (1 bytes)', '- a', '- b', '- c']), made: 4 });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('report.json') });
  });

  it('escapes when a newline in a name forges an extra entry', () => {
    const verdict = hostileNames.judge(done, { markdown: listing(['- notes', '  - other.json (9 bytes) (1 bytes)', '- a', '- b', '- c']), made: 4 });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('5 entries for 4 files') });
  });

  it('is skipped when the job could not create any name or did not report', () => {
    expect(hostileNames.judge(done, { markdown: '', made: 0 }).verdict).toBe('skipped');
    expect(hostileNames.judge(job('', 'failure', 127), { markdown: '', made: 0 }).verdict).toBe('skipped');
  });
});
