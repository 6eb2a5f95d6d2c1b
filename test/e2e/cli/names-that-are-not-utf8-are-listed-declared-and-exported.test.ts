/**
 * A job can name files with bytes that are not UTF-8 (round 2 of the red
 * team): `r\xff.txt` beside a real `r\u{fffd}.txt`, a directory `d\xff`. Through
 * the built bin on native, ls-files lists every one of them with its own
 * text form (`r\xff.txt`, `r\ufffd.txt`, `d\xff/x\xfe.txt`; a real backslash
 * as `\\`), in markdown and JSON alike, and that text form is what declare,
 * export, put's destination, ls-files PATH and run --declare accept: each export returns the
 * very file listed under the name, never its look-alike.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const native = { HEADSPACE_PROVIDER: 'native' };

const MAKE = `import os
os.makedirs(b"/workspace/d\\xff"); open(b"/workspace/d\\xff/x\\xfe.txt","w").write("bad")
open(b"/workspace/r\\xff.txt","w").write("invalid-utf8"); open("/workspace/r\\ufffd.txt","w").write("literal-fffd")
open("/workspace/r\\\\xff.txt","w").write("backslash")`;
/** Each name's text form and the content the job wrote under it. */
const FILES: Record<string, string> = { 'd\\xff/x\\xfe.txt': 'bad', 'r\\xff.txt': 'invalid-utf8', 'r\\ufffd.txt': 'literal-fffd', 'r\\\\xff.txt': 'backslash' };

describe.runIf(readiness.ready)(`names that are not UTF-8 through the bin on native (${readiness.reason})`, () => {
  const { home, cleanup } = makeHome();
  const out = mkdtempSync(join(tmpdir(), 'hs-names-out-'));
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'bytes'], native).code).toBe(0);
    const made = cli(home, ['run', '--declare', 'r\\xff.txt=the invalid name', 'bytes', '--', 'python3', '-c', MAKE], native);
    expect(made.code, made.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    cli(home, ['destroy', 'bytes', '--force'], native);
    await cleanup();
    rmSync(out, { recursive: true, force: true });
  });

  it('lists every entry once, each with its own text form, in markdown and JSON', () => {
    const run = cli(home, ['ls-files', 'bytes'], native);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('## Key findings\n')[1]!.split('\n## ')[0]!.split('\n');
    expect(lines.sort()).toEqual(
      ['- d\\xff/', '- d\\xff/x\\xfe.txt (3 bytes)', '- r\\ufffd.txt (12 bytes)', '- r\\xff.txt (12 bytes)', '- r\\\\xff.txt (9 bytes)'].sort(),
    );
    expect(run.stdout).not.toContain('\ufffd');
    const json = JSON.parse(cli(home, ['ls-files', 'bytes', '--json'], native).stdout) as {
      key_findings: Array<{ path: string; name_encoding?: string; text: string }>;
    };
    expect(json.key_findings.map((f) => f.path).sort()).toEqual(['d\\xff', ...Object.keys(FILES)].sort());
    expect(json.key_findings.every((f) => f.name_encoding === 'escaped' && f.text.startsWith(f.path))).toBe(true);
  });

  it('lists a directory that is not UTF-8 by its text form', () => {
    const run = cli(home, ['ls-files', 'bytes', 'd\\xff', '--json'], native);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { key_findings: Array<{ path: string }> }).key_findings.map((f) => f.path)).toEqual(['d\\xff/x\\xfe.txt']);
  });

  it('declares and exports each name to the very file listed under it', () => {
    for (const [name, content] of Object.entries(FILES)) {
      if (name !== 'r\\xff.txt') expect(cli(home, ['declare', 'bytes', `${name}=a hostile name`], native).code).toBe(0); // r\xff.txt came with run --declare
      const to = join(out, `${Object.keys(FILES).indexOf(name)}.out`);
      const exported = cli(home, ['export', 'bytes', name, '--to', to], native);
      expect(exported.code, exported.stderr).toBe(0);
      expect(readFileSync(to, 'utf8'), name).toBe(content);
    }
  });

  it('puts a host file at a destination given in the text form, as those bytes', () => {
    const source = join(out, 'source.txt');
    writeFileSync(source, 'from the host');
    const put = cli(home, ['put', 'bytes', source, 'in\\xfe/copy\\\\.txt'], native);
    expect(put.code, put.stderr).toBe(0);
    const listed = cli(home, ['ls-files', 'bytes', 'in\\xfe'], native);
    expect(listed.stdout).toContain('- in\\xfe/copy\\\\.txt (13 bytes)');
  });

  it("refuses a text that is not a name's text form, with a hint, instead of guessing", () => {
    const run = cli(home, ['export', 'bytes', 'r\\q.txt', '--to', join(out, 'never')], native);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('a backslash \\\\');
  });
});
