/**
 * Output probes: what a job can do to the person or model reading about it.
 * Not an escape from the sandbox, but the host-side rendering of job-chosen
 * text is part of the boundary: a file name with `\r` printed as
 * `- report.json`, a newline forging a listing entry, or U+202E reordering a
 * name lets a job lie about what it left behind (#10 item 11).
 */
import { notAttempted, type Scenario } from './probe-types.js';

const DONE = 'probe-done';
/** Created in a folder of their own so the listing holds only them. */
const DIR = 'hsprobe-names';
/** The names the job creates; the first would read as `report.json` if `\r` were drawn. */
export const HOSTILE_NAMES = ['payload.sh\rreport.json', 'notes\n- report.json (9 bytes)', 'clip\x1b]52;c;cHduZWQ=\x07.txt', 'invoice\u202etxt.exe'];

const NAMES_SCRIPT = `import os, sys
os.makedirs(sys.argv[1], exist_ok=True)
made = 0
for name in sys.argv[2:]:
    try:
        with open(os.path.join(sys.argv[1], name), 'w') as f: f.write('x')
        made += 1
    except OSError as e:
        print('refused:', repr(name), e.strerror)
print('made:', made)
print('${DONE}')`;

/** Raw characters that act on a terminal or reorder text: none may reach a rendered listing. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export interface ListingFacts {
  /** The markdown `ls-files` rendered for the job's folder. */
  markdown: string;
  /** How many files the job made. */
  made: number;
}

export const hostileNames: Scenario<ListingFacts> = {
  id: 'hostile-names',
  title: 'file names that spoof the listing',
  attempts: 'create files whose names hold \\r, a newline, an OSC 52 escape and U+202E, then check the host-rendered ls-files markdown shows them escaped: no raw control or bidi character, one entry per file, none reading as another name',
  requires: [],
  async prepare(host) {
    return {
      argv: ['python3', '-c', NAMES_SCRIPT, DIR, ...HOSTILE_NAMES],
      observe: async (job) => {
        const made = Number(/^made: (\d+)$/m.exec(job.output)?.[1] ?? 0);
        return { markdown: made > 0 ? await host.renderFileListing(DIR) : '', made };
      },
    };
  },
  judge(job, facts) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (facts.made === 0) return { verdict: 'skipped', evidence: 'the workspace filesystem refused every hostile name; nothing to render' };
    const raw = [...new Set(facts.markdown.match(RAW_CONTROL) ?? [])].map((ch) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
    if (raw.length > 0) return { verdict: 'escaped', evidence: `the rendered listing carries raw ${raw.join(', ')} from job-chosen names` };
    const entries = listEntries(facts.markdown);
    const spoofed = entries.filter((line) => /^- report\.json\b/.test(line));
    if (spoofed.length > 0) return { verdict: 'escaped', evidence: `a job-chosen name rendered as a different entry: ${JSON.stringify(spoofed[0])}` };
    if (entries.length !== facts.made) return { verdict: 'escaped', evidence: `the listing shows ${entries.length} entries for ${facts.made} files: names forged or hid entries` };
    return { verdict: 'contained', evidence: `${facts.made} hostile names rendered as ${entries.length} escaped entries, no raw control or bidi character` };
  },
};

/** The lines of the Key findings section (one per listed file) that look like entries: top-level `- ` or nested. */
function listEntries(markdown: string): string[] {
  const section = markdown.split('\n## Key findings\n')[1]?.split('\n## ')[0] ?? '';
  return section.split('\n').filter((line) => /^\s*- /.test(line)).map((line) => line.trim());
}
