/**
 * destroy's two refusals to discard work — declared artifacts never exported,
 * a sealed output not settled — are one state conflict: code WOULD_DISCARD,
 * exit 1 (user_error) for both, removing nothing, and suggesting the safe
 * call (an export, a release), never the --force that discards. `destroy --help` and
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

interface ErrorDocument {
  code: number;
  reason: string;
  category: string;
  message: string;
  action?: { verb: string; args: Record<string, unknown>; needs?: string[] };
}

function refusal(args: string[]): { code: number; error: ErrorDocument } {
  const out = cli(home, [...args, '--json']);
  return { code: out.code, error: JSON.parse(out.stderr) as ErrorDocument };
}

describe('destroy refusing to discard', () => {
  it('refuses unexported artifacts with WOULD_DISCARD, exit 1, removing nothing', () => {
    ok(['create', '--workspace-id', 'art']);
    ok(['run', '--declare', 'r.txt=kept', 'art', 'write', 'r.txt', 'y']);
    const refused = refusal(['destroy', 'art']);
    expect(refused.code).toBe(1);
    expect(refused.error).toMatchObject({ code: 1, reason: 'WOULD_DISCARD', category: 'user_error' });
    // The suggested call is the safe way out, an export: an agent following it never throws the artifact away.
    expect(refused.error.action).toEqual({ verb: 'export', args: { workspaceId: 'art', name: 'r.txt' }, needs: ['to'] });
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
