/**
 * On native a fork reads its parent's frozen layers from the parent's image,
 * so destroying the parent keeps that image (a retained store) until the
 * last fork goes. destroy said "removed: runtime, storage, job logs" while
 * the image stayed on disk (a new user, session 12). Now it reports the
 * storage retained, naming the forks that still read it, and the last
 * fork's destroy takes it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome } from '../../helpers/cli.js';
import { nativeCalls } from '../../helpers/native-calls.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
afterAll(cleanup);

describe.runIf(readiness.ready)(`destroying a parent its forks still read, on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('reports its storage retained for the forks named, until the last of them goes', async () => {
    const { ok, sh } = nativeCalls(home);
    ok(['create', '--workspace-id', 'p']);
    sh('p', 'echo kept > f');
    ok(['fork', 'p', '--workspace-id', 'c']);
    const parent = ok(['destroy', 'p', '--force']);
    expect(parent).toContain('retained: storage (storage: forks c still read its layers; it goes with the last of them)');
    expect(parent).not.toMatch(/removed: [^\n]*storage/);
    expect(existsSync(join(home, 'native', 'stores', 'p.img'))).toBe(true);
    expect(sh('c', 'cat f')).toContain('kept');
    const fork = ok(['destroy', 'c', '--force']);
    expect(fork).toContain('retained: (none)');
  }, 60_000);
});
