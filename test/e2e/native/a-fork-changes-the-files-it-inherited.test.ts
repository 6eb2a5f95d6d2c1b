/**
 * On native each live workspace's jobs run as a uid of their own, so the
 * files a fork inherits (its parent's frozen layers) were written by another
 * uid. A fork, and a fork of that fork, can still append to, replace and
 * delete them (#14: they are presented through idmapped binds), they show as
 * the fork's own, the parent's files stay as they were, and removing the
 * ancestors leaves the grandchild working and no idmapped mount behind.
 * The job's mountinfo names the binds relatively, never by a host path.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome } from '../../helpers/cli.js';
import { nativeCalls } from '../../helpers/native-calls.js';
import { nativeFeatures, nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const features = await nativeFeatures();

const home = makeHome();
afterAll(() => home.cleanup());
const { ok, shOut } = nativeCalls(home.home);
/** This test's idmapped binds: on the images of its workspaces (ip, ic, ig), whatever home they are in. */
const idmappedMounts = () =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => /\/img\/i[pcg]\/idmap\//.test(line)).length;

describe.runIf(readiness.ready && process.getuid?.() === 0 && features.includes('snapshots'))(
  `inherited files on native (needs a ready native host as root with snapshots: ${readiness.reason})`,
  () => {
    it('lets a fork and a fork of it change inherited files as their own, leaving the parent as it was', () => {
      ok(['create', '--workspace-id', 'ip']);
      ok(['run', 'ip', 'sh', '-c', 'mkdir d && echo a > d/f && echo t > top']);
      ok(['fork', 'ip', '--workspace-id', 'ic']);
      expect(shOut('ic', 'echo b >> d/f && echo n > d/new && rm top && cat d/f && stat -c "%u" d/f d')).toMatch(/^a\nb\n(\d+)\n\1\n$/);
      ok(['fork', 'ic', '--workspace-id', 'ig']);
      const mine = shOut('ig', 'echo c >> d/f && echo m >> d/new && cat d/f d/new && id -u && stat -c "%u" d/f d/new d');
      const uid = /^a\nb\nc\nn\nm\n(\d+)\n/.exec(mine)?.[1];
      expect(mine).toBe(`a\nb\nc\nn\nm\n${uid}\n${uid}\n${uid}\n${uid}\n`);
      expect(shOut('ip', 'cat d/f top; ls d')).toBe('a\nt\nf\n');
      // The binds are named relative to the image area, like every layer: the job's mountinfo names no host path.
      const line = shOut('ig', "grep ' /workspace ' /proc/self/mountinfo");
      expect(line).toMatch(/lowerdir=ig\/idmap\/ic\.L[0-9a-f]{16}:/);
      expect(line).not.toMatch(/[=:,]\//);
      expect(line).not.toContain(home.home);
      ok(['destroy', 'ip']);
      ok(['destroy', 'ic']);
      expect(shOut('ig', 'echo d >> d/f && cat d/f')).toBe('a\nb\nc\nd\n');
      ok(['destroy', 'ig']);
      expect(idmappedMounts()).toBe(0);
    });
  },
);
