/**
 * destroy's two refusals to discard work — declared artifacts never exported,
 * a sealed output not settled — are one state conflict: code WOULD_DISCARD,
 * exit 1 (user_error) for both, removing nothing. `destroy --help` and
 * `explain destroy` say what --force does to each.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

function ok(args: string[]): string {
  const out = cli(home, args);
  expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
  return out.stdout;
}

function refusal(args: string[]): { code: number; error: { code: number; reason: string; category: string; message: string } } {
  const out = cli(home, [...args, '--json']);
  return { code: out.code, error: JSON.parse(out.stderr) as { code: number; reason: string; category: string; message: string } };
}

describe('destroy refusing to discard', () => {
  it('refuses unexported artifacts with WOULD_DISCARD, exit 1, removing nothing', () => {
    ok(['create', '--workspace-id', 'art']);
    ok(['run', '--declare', 'r.txt=kept', 'art', 'write', 'r.txt', 'y']);
    const refused = refusal(['destroy', 'art']);
    expect(refused.code).toBe(1);
    expect(refused.error).toMatchObject({ code: 1, reason: 'WOULD_DISCARD', category: 'user_error' });
    ok(['status', 'art']);
  });

  it('refuses unsettled outputs with the same code and exit code, removing nothing', () => {
    ok(['create', '--workspace-id', 'par']);
    ok(['fork', 'par', '--workspace-id', 'kid']);
    ok(['run', 'kid', 'write', 'a.txt', 'x']);
    ok(['seal', 'kid']);
    for (const side of ['par', 'kid']) {
      const refused = refusal(['destroy', side]);
      expect(refused.code).toBe(1);
      expect(refused.error).toMatchObject({ code: 1, reason: 'WOULD_DISCARD', category: 'user_error' });
      expect(refused.error.message).toContain('nothing was removed');
    }
  });

  it('documents that --force also releases sealed, unsettled outputs', () => {
    const help = cli(home, ['destroy', '--help']).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--force discard unexported declared artifacts and release sealed, unsettled outputs');
    expect(ok(['explain', 'destroy'])).toContain('releases those outputs');
    expect(ok(['explain', 'exit-codes'])).toContain('WOULD_DISCARD');
  });
});
