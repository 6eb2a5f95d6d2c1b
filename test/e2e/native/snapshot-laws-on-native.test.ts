/**
 * The snapshot laws (#14) on real native workspaces, through the built bin:
 * restore reverts modifications, new files and deletions with modes and
 * symlinks; a fork seals and settles exactly once, select needing an
 * unmoved parent and apply refusing overlapping paths by name; settle
 * carries a file's mode and refuses a symlink by name; discard destroys the
 * fork. Runs once the native provider's capabilities list `snapshots` (the
 * native mechanism lands in its own branch), on a ready host as root.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeCalls } from '../../helpers/native-calls.js';
import { nativeFeatures, nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const features = await nativeFeatures();
const hasSnapshots = features.includes('snapshots');

const home = makeHome();
afterAll(() => home.cleanup());
const env = { HEADSPACE_PROVIDER: 'native' };
const { ok, sh, shOut } = nativeCalls(home.home);
const tree = (ws: string) =>
  shOut(
    ws,
    'find . -path ./lost+found -prune -o -print | sort | while read p; do stat -c "%n %A %s" "$p"; [ -L "$p" ] && readlink "$p"; [ -f "$p" ] && [ ! -L "$p" ] && cat "$p"; done; true',
  );
const after = (stdout: string, prefix: string) => new RegExp(`${prefix}: (\\S+)`).exec(stdout)![1]!;

describe.runIf(readiness.ready && process.getuid?.() === 0 && hasSnapshots)(
  `snapshot laws on native (needs a ready native host as root whose capabilities list snapshots: ${hasSnapshots ? readiness.reason : 'no snapshots feature yet'})`,
  () => {
    it('restore reverts a modification, a new file, a deletion, a mode and a symlink', () => {
      ok(['create', '--workspace-id', 'nr']);
      sh('nr', 'echo one > keep.txt && echo gone > gone.txt && echo x > run.sh && ln -s keep.txt link');
      const cp = after(ok(['checkpoint', 'nr']), 'checkpoint');
      const before = tree('nr');
      sh('nr', 'echo two > keep.txt && rm gone.txt && mkdir -p new && echo n > new/f && chmod +x run.sh && ln -sfn gone.txt link');
      expect(tree('nr')).not.toBe(before);
      ok(['restore', 'nr', cp]);
      expect(tree('nr')).toBe(before);
    });

    it('seals a fork and settles it once: select into an unmoved parent, carrying a mode', () => {
      ok(['create', '--workspace-id', 'np']);
      sh('np', 'echo base > a.txt && echo old > old.txt');
      ok(['fork', 'np', '--workspace-id', 'nc']);
      sh('nc', 'echo child > a.txt && rm old.txt && printf "#!/bin/sh\\necho hi\\n" > tool.sh && chmod 755 tool.sh');
      const out = after(ok(['seal', 'nc']), 'output');
      ok(['settle', out, 'select']);
      expect(shOut('np', 'cat a.txt; ls; ./tool.sh')).toMatch(/child[\s\S]*tool\.sh[\s\S]*hi/);
      expect(shOut('np', 'ls')).not.toContain('old.txt');
      const again = cli(home.home, ['settle', out, 'apply'], env);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('already settled: select');
    });

    it('refuses select into a moved parent and apply over a path both changed, consuming nothing', () => {
      ok(['create', '--workspace-id', 'mp']);
      sh('mp', 'echo base > shared.txt');
      ok(['fork', 'mp', '--workspace-id', 'mc']);
      sh('mc', 'echo child > shared.txt && echo new > mine.txt');
      const out = after(ok(['seal', 'mc']), 'output');
      sh('mp', 'echo parent > shared.txt');
      expect(cli(home.home, ['settle', out, 'select'], env).code).toBe(2);
      const apply = cli(home.home, ['settle', out, 'apply'], env);
      expect(apply.code).toBe(2);
      expect(apply.stderr).toContain('shared.txt');
      expect(shOut('mp', 'cat shared.txt; ls')).not.toContain('mine.txt');
      ok(['settle', out, 'discard']);
      expect(cli(home.home, ['inspect', 'mc'], env).stderr).toContain('destroyed workspace');
    });

    it('refuses to settle a symlink, naming it, and consumes nothing', () => {
      ok(['create', '--workspace-id', 'lp']);
      ok(['fork', 'lp', '--workspace-id', 'lc']);
      sh('lc', 'ln -s /etc/passwd pw');
      const out = after(ok(['seal', 'lc']), 'output');
      const refused = cli(home.home, ['settle', out, 'select'], env);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('pw');
      ok(['settle', out, 'release']);
    });
  },
);
