/**
 * A refusal on the CLI names the flags (and placeholders) the user types,
 * in its message and its hint, text and --json alike: never the library's
 * field names (`progressTimeoutSeconds`, `sinceFork`, `verifyFile`), which a
 * user typed back as printed (`headspace probe all`) only to be refused
 * again. The same refusals keep the field names on the library and MCP
 * (core/errors.ts inputRef); batch's are checked in
 * batch-misuse-names-the-flags-the-user-typed.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a refusal on the CLI', () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'ws', '--memory-bytes', '512M']).code).toBe(0);
  });

  it.each([
    ['probe without a choice', ['probe'], 1, /probe needs a SCENARIO id or --all/, /^--all, or one of: .*\(--list describes them\)/],
    ['probe of the word all', ['probe', 'all'], 1, /unknown probe scenario 'all'/, /--all asks for every scenario/],
    ['probe --last beside a scenario', ['probe', '--last', 'write-outside'], 1, /--last returns .*without a SCENARIO, --all or --list/, /without --last/],
    [
      'watch --progress-timeout alone',
      ['watch', 'ws', '--for', '2', '--progress-timeout', '5'],
      1,
      /--progress-timeout applies only with --require-progress/,
      /add --require-progress/,
    ],
    [
      'diff with two baselines',
      ['diff', 'ws', '--from', 'cp-x', '--since-fork'],
      1,
      /--from and --since-fork name two baselines/,
      /--from names a checkpoint; --since-fork/,
    ],
    [
      'receipt --artifacts without verify',
      ['receipt', 'job-x', '--artifacts', 'exp'],
      1,
      /--artifacts and --expect-sha256 go with verify FILE/,
      /give verify FILE too/,
    ],
    ['review-policy with an empty glob', ['review-policy', 'ws', '--deny-path', ''], 1, /--deny-path takes up to 64 non-empty globs/, /\*\.pem/],
    ['create with an empty glob', ['create', '--deny-path', ''], 1, /--deny-path takes up to 64 non-empty globs/, /\*\.pem/],
    ['fork widening a budget', ['fork', 'ws', '--memory-bytes', '9G'], 3, /--memory-bytes 9663676416 > the parent's 536870912/, /parent’s budget/],
    ['doctor --apply alone', ['doctor', '--apply'], 1, /--apply goes with --repair/, /--repair with --apply and --verify/],
    ['logs --lines backwards', ['logs', 'job-x', '--lines', '5:2'], 1, /--lines takes A:B with 1 ≤ A ≤ B, not '5:2'/, /--lines 120:160/],
    ['events subscribe to nothing', ['events', 'subscribe'], 1, /subscribe needs what to follow/, /\(--job\).*\(--workspace\).*\(--all\)/],
    ['a remote webhook', ['events', 'subscribe', '--all', '--webhook', 'http://example.com/x'], 3, /not on this machine/, /\(--allow-remote\)/],
    ['--allow-remote without a webhook', ['events', 'subscribe', '--all', '--allow-remote'], 1, /--allow-remote goes with --webhook/, /give the --webhook URL/],
  ])('names the flags for %s', (_name, args, code, message, hint) => {
    for (const json of [false, true]) {
      const run = cli(home, [...(args as string[]), ...(json ? ['--json'] : [])]);
      expect(run.code, run.stderr).toBe(code);
      const said = json
        ? (JSON.parse(run.stderr) as { message: string; remediation: string })
        : { message: /^error: (.*)$/m.exec(run.stderr)![1]!, remediation: /^hint: (.*)$/m.exec(run.stderr)![1]! };
      expect(said.message).toMatch(message as RegExp);
      expect(said.remediation).toMatch(hint as RegExp);
      // No field name of the library, and no raw input mark.
      expect(run.stderr).not.toMatch(
        /\{\{|\b(progressTimeoutSeconds|requireProgress|sinceFork|verifyFile|artifactsDir|expectSha256|denyPaths|memoryBytes|allowRemote)\b/,
      );
    }
  });
});
