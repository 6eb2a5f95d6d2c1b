/**
 * A manifest's verify section (#17 with #16) is refused before anything
 * happens, the way run refuses a bad --verify, --expect-file or
 * --expect-output, but naming the key path and the line: a command line
 * that does not split into words (a shell operator, an unclosed quote, no
 * word), an argv with a number in it, a pattern RE2 cannot match, a file
 * path that leaves the workspace, a digest that is not one, an entry with
 * no kind or two, and an output check with no setup command whose output
 * it could judge. plan and prepare both refuse; nothing is created.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

const head = 'schema: headspace.workspace/v1\nid: w\nprovider: fake\nsetup:\n  - argv: [echo, hi]\nverify:\n  - file: a.txt\n';

const cases: Array<[title: string, entry: string, expected: RegExp]> = [
  [
    'a shell operator in a command line',
    '  - command: "test -f a && cat a"\n',
    /verify\[1\]\.command, line 8: the command 'test -f a && cat a': '&' is a shell operator/,
  ],
  ['an unclosed quote', `  - command: "cat 'a"\n`, /verify\[1\]\.command, line 8: .*an unclosed single quote/],
  ['a command line of spaces', '  - command: "  "\n', /verify\[1\]\.command, line 8: .*no command/],
  ['a number in an argv', '  - command: [fail, 3]\n', /verify\[1\]\.command, line 8: must be one line of text, or a list of text arguments/],
  ['an empty argv', '  - command: []\n', /verify\[1\]\.command, line 8: .*>=1 items/],
  ['a pattern RE2 cannot match', "  - output: '(a)\\1'\n", /verify\[1\]\.output, line 8: the expect-output pattern .* is not one headspace can match/],
  ['a file outside the workspace', '  - file: ../etc/passwd\n', /verify\[1\]\.file, line 8: .*'\.\.'/],
  ['an absolute file', '  - file: /etc/passwd\n', /verify\[1\]\.file, line 8: .*absolute/],
  ['a digest that is not one', '  - file: b.txt\n    sha256: abc\n', /verify\[1\]\.sha256, line 9: 'abc' is not a sha256 digest/],
  ['an entry of no known kind', '  - test: x\n', /verify\[1\], line 8: a check has exactly one of command:, file: \(with an optional sha256:\) or output:/],
  ['an entry of two kinds', '  - command: "true"\n    file: a.txt\n', /verify\[1\], line 8: a check has exactly one of/],
];

describe('a refused verify section', () => {
  for (const [title, entry, expected] of cases) {
    it(`names the key path and line for ${title}, and nothing is created by plan or prepare`, async () => {
      t = makeTestEngine();
      project = makeProject();
      const file = project.write('headspace.yml', `${head}${entry}`);
      for (const call of [t.engine.plan, t.engine.prepare]) {
        await expect(call({ file })).rejects.toMatchObject({ code: 'BAD_MANIFEST', message: expect.stringMatching(expected) });
      }
      expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
    });
  }

  it('refuses an output check when there is no setup command whose output it could judge', async () => {
    t = makeTestEngine();
    project = makeProject();
    const file = project.write('headspace.yml', 'schema: headspace.workspace/v1\nid: w\nprovider: fake\nverify:\n  - output: ok\n');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'BAD_MANIFEST',
      message: expect.stringMatching(
        /verify\[0\]\.output, line 5: an output check judges the last setup command's output, and the manifest has no setup command/,
      ),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
