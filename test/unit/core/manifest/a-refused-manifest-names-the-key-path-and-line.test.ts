/**
 * A headspace.yml is refused before anything happens (#17): unknown keys,
 * wrong types, YAML that does not parse, and paths that escape — `..`,
 * absolute where relative is required, a symbolic link on the way, a
 * workspace destination outside the workspace, a path into the user's .git
 * metadata, an alias bomb — each named by its key path (or the cause)
 * and line. plan and prepare both refuse, and nothing is created.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

const head = 'schema: headspace.workspace/v1\nid: w\nprovider: fake\n';

const cases: Array<[title: string, body: string, expected: RegExp]> = [
  ['an unknown key at the top', `${head}colour: red\n`, /colour, line 4: unknown key 'colour'/],
  [
    'an unknown key in an input',
    `${head}inputs:\n  - path: a.txt\n  - path: a.txt\n    dest: b\n`,
    /inputs\[1\]\.dest, line 7: unknown key 'dest'; nothing was done/,
  ],
  ['a misspelt key', `${head}purpos: x\n`, /purpos, line 4: unknown key 'purpos' \(did you mean 'purpose'\?\)/],
  ['a misspelt key in an input', `${head}inputs:\n  - path: a.txt\n    too: b\n`, /inputs\[0\]\.too, line 6: unknown key 'too' \(did you mean 'to'\?\)/],
  ['a bare true in an argv', `${head}setup:\n  - argv: [echo, true]\n`, /setup\[0\]\.argv\[1\], line 5: .*quote it to keep it text: 'true'/],
  [
    'a byte budget that is neither a number nor one with a suffix',
    `${head}policy:\n  budget:\n    memoryBytes: lots\n`,
    /policy\.budget\.memoryBytes, line 6: a whole number of bytes .* e\.g\. 512M; not 'lots'/,
  ],
  ['a wrong type', `${head}policy:\n  budget:\n    cpuLimit: lots\n`, /policy\.budget\.cpuLimit, line 6: .*expected number/],
  ['a budget out of range', `${head}policy:\n  budget:\n    memoryBytes: 10\n`, /policy\.budget\.memoryBytes, line 6:/],
  ['another schema', 'schema: headspace.workspace/v9\nid: w\n', /schema, line 1: must be headspace\.workspace\/v1/],
  ['a missing id', 'schema: headspace.workspace/v1\n', /id, line 1:/],
  ['setup that is not argv', `${head}setup:\n  - argv: "make all"\n`, /setup\[0\]\.argv, line 5: .*expected array/],
  [
    'a path with ..',
    `${head}inputs:\n  - path: a.txt\n  - path: a.txt\n    to: b.txt\n  - path: ../secret\n`,
    /inputs\[2\].path, line 8: '\.\.\/secret' contains '\.\.'/,
  ],
  ['an absolute path', `${head}inputs:\n  - path: /etc/passwd\n`, /inputs\[0\]\.path, line 5: '\/etc\/passwd' is absolute/],
  ['an absolute env file', `${head}envFiles: [/root/.env]\n`, /envFiles\[0\], line 4: '\/root\/\.env' is absolute/],
  ['a destination outside the workspace', `${head}inputs:\n  - path: a.txt\n    to: ../../x\n`, /inputs\[0\]\.to, line 6: .*'\.\.'/],
  ['an artifact outside the workspace', `${head}artifacts:\n  - name: /out.txt\n    purpose: p\n`, /artifacts\[0\]\.name, line 5: .*absolute/],
  [
    'two inputs landing on one path',
    `${head}inputs:\n  - path: a.txt\n  - path: d\n    to: a.txt\n`,
    /inputs\[1\], line 6: lands at 'a\.txt', overlapping inputs\[0\]/,
  ],
  ['YAML that does not parse', `${head}inputs: [\n`, /not YAML: .*line \d+/],
  ['a duplicated key', `${head}id: again\n`, /not YAML: .*[Mm]ap keys must be unique/],
  // The user's own git metadata is not the project's content: its config may hold a token (red team, manifests).
  ['an input inside .git', `${head}inputs:\n  - path: .git/config\n`, /inputs\[0\]\.path, line 5: '\.git\/config' is inside a \.git directory/],
  ['an env file inside a nested .git', `${head}envFiles: [sub/.git/config]\n`, /envFiles\[0\], line 4: 'sub\/\.git\/config' is inside a \.git directory/],
  [
    'aliases nested into a billion laughs',
    `${head}a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
    /its aliases expand too far/,
  ],
];

describe('a refused manifest', () => {
  for (const [title, body, expected] of cases) {
    it(`names the key path and line for ${title}, and nothing is created by plan or prepare`, async () => {
      t = makeTestEngine();
      project = makeProject({ 'a.txt': 'a\n', 'd/x': 'x\n' });
      const file = project.write('headspace.yml', body);
      for (const call of [t.engine.plan, t.engine.prepare]) {
        await expect(call({ file })).rejects.toMatchObject({ code: 'BAD_MANIFEST', message: expect.stringMatching(expected) });
      }
      expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
    });
  }

  it('refuses an input reached through a symbolic link, naming the link', async () => {
    t = makeTestEngine();
    project = makeProject({ 'real/a.txt': 'a\n' });
    symlinkSync(join(project.dir, 'real'), join(project.dir, 'link'));
    const file = project.write('headspace.yml', `${head}inputs:\n  - path: link/a.txt\n`);
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'BAD_MANIFEST',
      message: expect.stringMatching(/inputs\[0\]\.path, line 5: 'link\/a\.txt' passes through a symbolic link \(link\)/),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it('refuses a manifest that is not there with file_not_found', async () => {
    t = makeTestEngine();
    project = makeProject();
    await expect(t.engine.plan({ file: join(project.dir, 'headspace.yml') })).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});
