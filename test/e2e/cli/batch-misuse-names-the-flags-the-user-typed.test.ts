/**
 * A batch refused for its strategy or quorum speaks of the flags the user
 * typed (`--strategy quorum`, `--quorum`), in the message and in the hint,
 * text and --json alike: never "the quorum strategy" or "a quorum", words of
 * no face that left the user to guess which flag was meant. (On MCP and the
 * library the same refusals name the fields: test/unit/mcp/batch-misuse-names-the-fields-on-mcp-and-the-library.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { writeSpec } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const one = [{ workspace: 'pool', command: 'true' }];
const two = [...one, ...one];

describe('a misused batch on the CLI', () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'pool']).code).toBe(0);
  });

  it.each([
    ['a quorum strategy without a quorum', ['--strategy', 'quorum'], two, /--strategy quorum needs --quorum/, /add --quorum from 1 to 2 .*e\.g\. --quorum 2/],
    [
      'a quorum for another strategy',
      ['--strategy', 'any', '--quorum', '1'],
      one,
      /--quorum is only for --strategy quorum, not --strategy any/,
      /leave --quorum out, or choose --strategy quorum/,
    ],
    ['a quorum above the job count', ['--strategy', 'quorum', '--quorum', '3'], two, /--quorum takes a whole number from 1 to 2/, /e\.g\. --quorum 2/],
    ['an unknown strategy', ['--strategy', 'first'], one, /unknown --strategy "first"/, /quorum: that many successes/],
  ])('names the flags for %s', (_name, args, jobs, message, hint) => {
    const spec = writeSpec(home, jobs as never);
    for (const json of [[], ['--json']]) {
      const run = cli(home, ['batch', ...json, ...(args as string[]), '--spec', spec]);
      expect(run.code).toBe(1);
      const said = json.length ? (JSON.parse(run.stderr) as { message: string; remediation: string }) : null;
      expect(said ? said.message : run.stderr).toMatch(message as RegExp);
      expect(said ? said.remediation : run.stderr).toMatch(hint as RegExp);
      expect(run.stderr).not.toMatch(/the quorum strategy|a quorum\b|\{\{/);
    }
  });

  it('names --spec when no jobs were given', () => {
    const run = cli(home, ['batch', '--strategy', 'all']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/hint: give --spec: a YAML or JSON spec/);
  });
});
