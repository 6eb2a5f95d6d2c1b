/**
 * `learn --json` gives `exit_codes` in the seed's shape: each code "0"…"9"
 * maps to what it means, so a client reading `exit_codes["6"]` gets the
 * meaning; the category name of each code is under `exit_code_names`
 * (name → code), and `cli overview --json` says the same.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface Learned {
  exit_codes: Record<string, string>;
  exit_code_names: Record<string, number>;
}

describe('learn --json', () => {
  it('maps each exit code, as a string key, to its meaning', () => {
    const learned = JSON.parse(cli(home, ['learn', '--json']).stdout) as Learned;
    expect(Object.keys(learned.exit_codes)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    for (const meaning of Object.values(learned.exit_codes)) expect(typeof meaning).toBe('string');
    expect(learned.exit_codes['6']).toMatch(/the job ran and failed/);
    expect(learned.exit_codes['5']).toMatch(/stop/);
    expect(learned.exit_codes['9']).toMatch(/verification/);
  });

  it('keeps the category name of each code under exit_code_names', () => {
    const learned = JSON.parse(cli(home, ['learn', '--json']).stdout) as Learned;
    expect(learned.exit_code_names).toEqual({
      success: 0,
      user_error: 1,
      environment_error: 2,
      policy_denied: 3,
      timeout: 4,
      cancelled: 5,
      computation_failed: 6,
      infrastructure_failure: 7,
      resource_exhausted: 8,
      inconclusive: 9,
    });
  });

  it('says the same in cli overview --json', () => {
    const learned = JSON.parse(cli(home, ['learn', '--json']).stdout) as Learned;
    const overview = JSON.parse(cli(home, ['cli', 'overview', '--json']).stdout) as Learned;
    expect(overview.exit_codes).toEqual(learned.exit_codes);
    expect(overview.exit_code_names).toEqual(learned.exit_code_names);
  });
});
