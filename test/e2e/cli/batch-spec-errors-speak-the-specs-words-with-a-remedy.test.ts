/**
 * A batch refused for its spec or arguments says so in the spec's own words
 * — which job, which key, what is wrong — with a remedy, never a library's
 * wording: no "Invalid input: expected object, received null", no
 * "YAML.parseAllDocuments()", no raw regex, no "Too big: expected array".
 * A missing --strategy lists the values; a job left unnamed never takes a
 * name another job was given.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const LIBRARY_WORDS = /Invalid input|parseAllDocuments|expected (object|array)|Too big|\^\[|received null|zod|YAML\.parse/;

function batchWithText(text: string, args = ['--strategy', 'all']) {
  const path = join(home, 'spec.yml');
  writeFileSync(path, text);
  return cli(home, ['batch', ...args, '--spec', path]);
}

describe("a batch spec's refusals", () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
  });

  it.each([
    ['an empty file', '', /the batch spec is empty/],
    ['two YAML documents', 'jobs:\n - {workspace: w, command: ls}\n---\njobs: []\n', /more than one YAML document/],
    ['a bad job name', 'jobs:\n - {workspace: w, command: ls, name: "bad name"}\n', /job 1's name "bad name" is not a valid job name/],
    ['a misspelt key', 'jobs:\n - {workspace: w, commnd: ls}\n', /job 1 has a key it does not know: commnd/],
    ['a bare list', '- {workspace: w, command: ls}\n', /a bare list, not a mapping with jobs:/],
    ['too many jobs', `jobs:\n${' - {workspace: w, command: ls}\n'.repeat(1001)}`, /lists 1001 jobs; one batch runs at most 1000/],
  ])("names %s in the spec's words, with a hint", (_name, text, message) => {
    const run = batchWithText(text);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^hint: /m);
    expect(run.stderr).not.toMatch(LIBRARY_WORDS);
  });

  it('lists the strategies when --strategy is missing', () => {
    const run = batchWithText('jobs:\n - {workspace: w, command: ls}\n', []);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('batch needs --strategy: one of all, allSettled, race, any, quorum');
  });

  it('gives a job without a name one no other job was given', () => {
    const run = runBatch(
      home,
      ['--strategy', 'all'],
      [
        { workspace: 'w', command: 'true' },
        { workspace: 'w', command: 'true', name: 'job-1' },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const names = memberLines(run.pkg!).map((l) => l.text.split(/[: ]/)[0]);
    expect(new Set(names).size).toBe(2);
    expect(names).toContain('job-1');
  });

  it('names both jobs that were given the same name', () => {
    const run = runBatch(
      home,
      ['--strategy', 'all'],
      [
        { workspace: 'w', command: 'true', name: 'twin' },
        { workspace: 'w', command: 'true', name: 'twin' },
      ],
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('jobs 1 and 2 are both named twin');
  });
});
