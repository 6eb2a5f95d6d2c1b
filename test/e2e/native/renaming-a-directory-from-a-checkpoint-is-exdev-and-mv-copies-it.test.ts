/**
 * A documented limit of native snapshots (README "Limits", ARCHITECTURE):
 * the overlay runs without redirect_dir, so rename(2) of a directory that
 * came from a checkpoint's frozen layer answers EXDEV ("Invalid cross-device
 * link"); `mv` falls back to copying and succeeds, diff then names the move
 * as the old paths deleted and the new ones created, and restore brings the
 * old name back. A directory made since the checkpoint renames normally.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeFeatures, nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const hasSnapshots = (await nativeFeatures()).includes('snapshots');

const home = makeHome();
afterAll(() => home.cleanup());
const env = { HEADSPACE_PROVIDER: 'native' };
const json = (args: string[]) => {
  const out = cli(home.home, [args[0]!, '--json', ...args.slice(1)], env);
  return { code: out.code, pkg: JSON.parse(out.stdout || '{}') as { evidence: Array<{ excerpt: string }>; key_findings: unknown[]; outcome_summary: string } };
};
const sh = (ws: string, script: string) => json(['run', ws, 'sh', '-c', script]);
const renameWithoutFallback = (from: string, to: string) => `perl -e 'rename("${from}", "${to}") or die "rename: $!\\n"'`;

describe.runIf(readiness.ready && process.getuid?.() === 0 && hasSnapshots)(
  `renaming a directory from a checkpoint on native (needs a ready native host as root with snapshots: ${readiness.reason})`,
  () => {
    it('is EXDEV to rename(2), mv copies it, diff names the move as deletes and creates, and restore undoes it', () => {
      expect(cli(home.home, ['create', '--workspace-id', 'mv1'], env).code).toBe(0);
      expect(sh('mv1', 'mkdir -p old/sub && echo a > old/a.txt && echo b > old/sub/b.txt').code).toBe(0);
      const cp = json(['checkpoint', 'mv1']).pkg.key_findings.find((f) => typeof f === 'object') as { checkpoint_id: string };

      const raw = sh('mv1', renameWithoutFallback('old', 'new'));
      expect(raw.code).not.toBe(0);
      expect(raw.pkg.evidence[0]!.excerpt).toContain('Invalid cross-device link');

      expect(sh('mv1', 'mkdir fresh && echo f > fresh/f.txt && ' + renameWithoutFallback('fresh', 'renamed')).code).toBe(0);

      expect(sh('mv1', 'mv old new && cat new/a.txt new/sub/b.txt').code).toBe(0);
      const diff = json(['diff', 'mv1', '--from', cp.checkpoint_id, '--limit', '100']).pkg.key_findings.filter((f): f is string => typeof f === 'string');
      expect(diff).toEqual(expect.arrayContaining([expect.stringMatching(/^deleted old\/a\.txt/), expect.stringMatching(/^created new\/a\.txt: 2 bytes/)]));

      expect(cli(home.home, ['restore', 'mv1', cp.checkpoint_id], env).code).toBe(0);
      expect(sh('mv1', 'cat old/a.txt old/sub/b.txt && test ! -e new').pkg.evidence[0]!.excerpt).toContain('a\nb');
    });
  },
);
