/**
 * `headspace` with no arguments asked for nothing wrong: it prints the
 * overview of verbs on stdout and exits 0, so `headspace | less` shows it
 * (#12 item 16). A usage error still goes to stderr with exit 1.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('bare headspace', () => {
  it('prints the help on stdout and exits 0', () => {
    const bare = cli(home, []);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('Usage: headspace');
    expect(bare.stdout).toContain('run [options] <workspace> <command...>');
    expect(bare.stdout).toContain('Exit codes: 0 success');
    expect(bare.stderr).toBe('');
  });

  it('still sends an unknown verb to stderr with exit 1', () => {
    const wrong = cli(home, ['frobnicate']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toContain('hint:');
  });
});
