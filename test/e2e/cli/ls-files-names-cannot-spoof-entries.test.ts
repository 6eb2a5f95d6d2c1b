/**
 * A job names its files, and `ls-files` prints those names (#10 item 11):
 * `payload.sh\rreport.json` printed as `- report.json`, and a newline forged
 * an entry. Every control, newline and bidi character in a name is an
 * escape in the name's text form (core/name-text.ts), wherever a name is
 * printed: the listing, the artifacts list, declare's result, errors on
 * stderr. --json carries the same text form (`path`, flagged
 * `name_encoding: 'escaped'`), it decodes back to the real name, and it is
 * what declare and export accept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nameBytes, stringText } from '../../../src/core/name-text.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const NAMES = ['payload.sh\rreport.json', 'notes\n- report.json', 'clip\x1b]52;c;cHduZWQ=\x07.txt', 'invoice\u202etxt.exe'];
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

beforeAll(() => {
  expect(cli(home, ['create', '--workspace-id', 'names-ws']).code).toBe(0);
  for (const name of NAMES) expect(cli(home, ['run', 'names-ws', 'write', name, 'x']).code).toBe(0);
});

describe('hostile file names', () => {
  it('are escaped in the ls-files listing, one entry per file, none reading report.json', () => {
    const run = cli(home, ['ls-files', 'names-ws']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW);
    const findings = run.stdout.split('## Key findings\n')[1]!.split('\n## ')[0]!.split('\n');
    expect(findings).toHaveLength(NAMES.length);
    expect(findings).not.toContain('- report.json (1 bytes)');
    expect(findings).toContain('- payload.sh\\rreport.json (1 bytes)');
    for (const name of NAMES) expect(findings).toContain(`- ${stringText(name)} (1 bytes)`);
  });

  it('decode back to the real names from --json', () => {
    const run = cli(home, ['ls-files', 'names-ws', '--json']);
    // Each entry is an object (#13): `path` is the text form, `text` the line markdown shows.
    const findings = (JSON.parse(run.stdout) as { key_findings: Array<{ kind: string; path: string; text: string; name_encoding?: string }> }).key_findings;
    expect(findings.map((f) => nameBytes(f.path).toString('utf8')).sort()).toEqual([...NAMES].sort());
    expect(findings.every((f) => f.name_encoding === 'escaped' && f.text === `${f.path} (1 bytes)`)).toBe(true);
  });

  it("are escaped in declare's result and the artifacts list, and real in --json", () => {
    const declared = cli(home, ['declare', 'names-ws', `${NAMES[0]}=the payload`]);
    expect(declared.code, declared.stderr).toBe(0);
    expect(declared.stdout).not.toMatch(RAW);
    expect(declared.stdout).toContain("'payload.sh\\rreport.json'");
    const json = cli(home, ['declare', 'names-ws', `${stringText(NAMES[3]!)}=the invoice`, '--json']);
    const artifacts = (JSON.parse(json.stdout) as { artifacts: Array<{ name: string }> }).artifacts.map((a) => a.name);
    expect(artifacts).toContain(stringText(NAMES[0]!));
    expect(artifacts).toContain(stringText(NAMES[3]!));
  });

  it('are escaped in errors on stderr', () => {
    const run = cli(home, ['export', 'names-ws', NAMES[2]!, '--to', `${home}/out.txt`]);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.stderr).toContain('clip\\x1b]52');
  });
});
