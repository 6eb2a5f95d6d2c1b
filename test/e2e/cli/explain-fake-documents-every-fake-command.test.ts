/**
 * `headspace explain fake` documents the fake provider's scripted command
 * language, every command of it, so a user trying the CLI with
 * `--provider fake` knows what a job can do there (#12 item 16).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { FAKE_COMMANDS } from '../../../src/providers/fake/fake-commands.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('explain fake', () => {
  it('names every command of the fake language and says it isolates nothing', () => {
    const out = cli(home, ['explain', 'fake']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('isolates nothing');
    for (const command of FAKE_COMMANDS) expect(out.stdout, command).toMatch(new RegExp(`(^|[ ;:(])${command}( |\\b)`));
    expect(out.stdout).toContain('&&');
  });
});
