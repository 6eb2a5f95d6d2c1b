/**
 * A fork that made a directory a file (or a file a directory) settles: the
 * parent's old entry of the other type goes before the new one lands. Each
 * write onto it, or under it, was refused ("'d' is a directory", exit 1) and
 * such an output could never be taken (red team, session 11). And a sealed
 * file's set-id and sticky bits, which no provider writes, are named in a
 * warning instead of being listed as if carried.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome } from '../../helpers/cli.js';
import { nativeCalls } from '../../helpers/native-calls.js';
import { nativeFeatures, nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const hasSnapshots = (await nativeFeatures()).includes('snapshots');

const home = makeHome();
afterAll(() => home.cleanup());
const { ok, sh, shOut } = nativeCalls(home.home);

describe.runIf(readiness.ready && process.getuid?.() === 0 && hasSnapshots)(`settle of a change of type on native (${readiness.reason})`, () => {
  it('replaces the entry of the other type, and warns of the set-id bits it does not carry', () => {
    ok(['create', '--workspace-id', 'tp', '--profile', 'host']);
    sh('tp', 'mkdir d && echo x > d/x && echo f > f');
    ok(['fork', 'tp', '--workspace-id', 'tc']);
    sh('tc', 'rm -r d && echo file > d && rm f && mkdir f && echo y > f/y && echo s > s && chmod 4755 s');
    const output = /output (out-\S+)/.exec(ok(['seal', 'tc']))![1]!;
    const settled = JSON.parse(ok(['settle', output, 'select', '--json'])) as { warnings: string[] };
    expect(settled.warnings).toContain('s lands with mode 0755: its set-id and sticky bits (4755) are not carried');
    expect(shOut('tp', 'for p in d f f/y s; do stat -c "%n %F %a" $p; done; cat d f/y')).toBe(
      'd regular file 644\nf directory 755\nf/y regular file 644\ns regular file 755\nfile\ny\n',
    );
  });
});
