/**
 * Every verb takes --json and --provider; results go to stdout and
 * diagnostics to stderr, never mixed; learn --json carries the exit-code
 * map; every verb has an explain entry.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { VERBS } from '../../../src/cli/catalog.js';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
/** A bin call per verb, one after another: about 50 node starts, past 30 s on a loaded 2-core machine. */
const PER_VERB_MS = 2_000;

describe('the CLI surface', () => {
  it(
    'accepts --json and --provider on every verb',
    () => {
      for (const verb of VERBS) {
        // A two-word verb (`events claim`) is two arguments.
        const help = cli(home, [...verb.name.split(' '), '--help']);
        expect(help.code, verb.name).toBe(0);
        expect(help.stdout).toContain('--json');
        expect(help.stdout).toContain('--provider');
      }
    },
    VERBS.length * PER_VERB_MS,
  );

  it('prints one JSON document on stdout and nothing on stderr for a successful verb', () => {
    for (const args of [['ls'], ['version'], ['learn'], ['cli', 'overview'], ['explain', 'run'], ['doctor', '--provider', 'fake'], ['gc']]) {
      const run = cli(home, [...args, '--json']);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stderr).toBe('');
      expect(() => JSON.parse(run.stdout)).not.toThrow();
    }
  });

  it('teaches the exit-code map through learn --json', () => {
    const learned = JSON.parse(cli(home, ['learn', '--json']).stdout) as { exit_code_names: Record<string, number> };
    expect(learned.exit_code_names).toMatchObject({
      success: 0,
      user_error: 1,
      environment_error: 2,
      policy_denied: 3,
      timeout: 4,
      cancelled: 5,
      computation_failed: 6,
      infrastructure_failure: 7,
      resource_exhausted: 8,
    });
  });

  it(
    'explains every verb',
    () => {
      for (const verb of VERBS) {
        const run = cli(home, ['explain', verb.name]);
        expect(run.code, verb.name).toBe(0);
        expect(run.stdout).toContain(verb.summary);
      }
    },
    VERBS.length * PER_VERB_MS,
  );

  it('describes the whole surface as data', () => {
    const overview = JSON.parse(cli(home, ['cli', 'overview', '--json']).stdout) as { verbs: Array<{ name: string }> };
    expect(overview.verbs.map((v) => v.name)).toEqual(VERBS.map((v) => v.name));
  });
});
