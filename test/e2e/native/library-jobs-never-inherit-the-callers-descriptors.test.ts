/**
 * A program using headspace as a library may itself hold descriptors
 * without close-on-exec (a directory it opened with `exec 200</`-style
 * inheritance, a pipe from its own parent). None of them may reach a job
 * (#10 item 1): the job sees exactly 0, 1 and 2. The program here is a child
 * node process started with a directory descriptor of / at fd 200 and a
 * pipe at fd 251; it creates a native workspace through the public API and
 * runs one job that lists its descriptors.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, makeHome, REPO } from '../../helpers/cli.js';
import { spawnLeakingDescriptors } from '../../helpers/leaked-descriptors.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
afterAll(cleanup);

/** Lists the descriptors still open after the listing (the listing's own is closed by then). */
const LIST_FDS = `import os
names = os.listdir('/proc/self/fd')
live = []
for n in names:
    try: os.fstat(int(n)); live.append(int(n))
    except OSError: pass
print('job-fds:', ' '.join(str(fd) for fd in sorted(live)))`;

const PROGRAM = `
import { readdirSync } from 'node:fs';
const { createHeadspace } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'api', 'index.js')).href)});
const hs = createHeadspace({ home: process.env.HS_HOME, defaultProvider: 'native' });
const created = await hs.create({});
const id = created.provenance.workspace_id;
try {
  const ran = await hs.run({ workspaceId: id, argv: ['python3', '-c', process.env.LIST_FDS] });
  console.log(JSON.stringify({ mine: readdirSync('/proc/self/fd'), status: ran.status, excerpt: ran.evidence[0]?.excerpt ?? '' }));
} finally {
  await hs.destroy({ workspaceId: id, force: true });
  hs.close();
}`;

describe.runIf(readiness.ready)(`library jobs on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('see only descriptors 0, 1 and 2 although the calling program holds a directory and a pipe without close-on-exec', () => {
    assertBuilt();
    const child = spawnLeakingDescriptors(process.execPath, ['--input-type=module', '-e', PROGRAM], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HS_HOME: home, LIST_FDS },
      timeout: 60_000,
    });
    expect(child.code, child.stderr).toBe(0);
    const report = JSON.parse(child.stdout.trim().split('\n').pop()!) as { mine: string[]; status: string; excerpt: string };
    // The program really held the leaked descriptors, so the job could have inherited them.
    expect(report.mine).toEqual(expect.arrayContaining(['200', '251']));
    expect(report.status).toBe('success');
    expect(report.excerpt).toContain('job-fds: 0 1 2\n');
  });
});
