/**
 * A job names its files, and `ls-files` prints those names (#10 item 11):
 * `payload.sh\rreport.json` printed as `- report.json`, and a newline forged
 * an entry. In markdown every control, newline and bidi character in a name
 * is escaped (the name shown as a JSON string literal), wherever a name is
 * printed: the listing, the artifacts list, declare's result, errors on
 * stderr. Under --json the artifacts list keeps the real name, and each
 * escaped literal parses back to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

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
    for (const name of NAMES) expect(findings).toContain(`- ${JSON.stringify(name).replace(/\u202e/g, '\\u202e')} (1 bytes)`);
  });

  it('parse back to the real names from --json', () => {
    const run = cli(home, ['ls-files', 'names-ws', '--json']);
    // Each entry is an object (#13): `path` is the real name, `text` the escaped line markdown shows.
    const findings = (JSON.parse(run.stdout) as { key_findings: Array<{ kind: string; path: string; text: string }> }).key_findings;
    expect(findings.map((f) => f.path).sort()).toEqual([...NAMES].sort());
    const shown = findings.map((f) => JSON.parse(f.text.slice(0, f.text.lastIndexOf(' ('))) as string);
    expect(shown.sort()).toEqual([...NAMES].sort());
  });

  it('are escaped in declare\'s result and the artifacts list, and real in --json', () => {
    const declared = cli(home, ['declare', 'names-ws', `${NAMES[0]}=the payload`]);
    expect(declared.code, declared.stderr).toBe(0);
    expect(declared.stdout).not.toMatch(RAW);
    expect(declared.stdout).toContain('"payload.sh\\rreport.json"');
    const json = cli(home, ['declare', 'names-ws', `${NAMES[3]}=the invoice`, '--json']);
    const artifacts = (JSON.parse(json.stdout) as { artifacts: Array<{ name: string }> }).artifacts.map((a) => a.name);
    expect(artifacts).toContain(NAMES[0]);
    expect(artifacts).toContain(NAMES[3]);
  });

  it('are escaped in errors on stderr', () => {
    const run = cli(home, ['export', 'names-ws', NAMES[2]!, '--to', `${home}/out.txt`]);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.stderr).toContain('clip\\u001b]52');
  });
});
