/**
 * Nothing is left behind under the runtime directory (#12 item 17): a mount
 * base whose home no longer exists, whose home holds no workspace, or that
 * an older headspace left holding no workspace's entry is reported by the
 * engine's native provider as ONE leftover (a shared machine can hold
 * hundreds) and removed by doctor --repair --apply; a base that still
 * serves a workspace, or that changed within the age guard, is left alone.
 * Bases name their home in a `home` marker written when they are made.
 * Runs in a scratch runtime directory, never the machine's real one.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { ensureUnderBase } from '../../../../src/providers/native/mount-base.js';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';

const scratch = mkdtempSync(join(tmpdir(), 'hs-stale-bases-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const run = join(scratch, 'run');
const tagOf = (root: string) => layoutOf(root).cgroupName('').replace(/-$/, '');

function plantBase(tag: string, home: string | null, entries: string[]): string {
  const dir = join(run, tag);
  for (const area of ['fs', 'ws', 'runtime']) mkdirSync(join(dir, area), { recursive: true });
  if (home !== null) writeFileSync(join(dir, 'home'), `${home}\n`);
  for (const entry of entries) {
    if (entry.endsWith('/')) mkdirSync(join(dir, entry), { recursive: true });
    else writeFileSync(join(dir, entry), 'x');
  }
  return dir;
}

describe('a new mount base', () => {
  it('names its home in a marker', async () => {
    const base = join(scratch, 'marked');
    await ensureUnderBase(base, 'runtime', { name: 'ws-1', mode: 0o755 }, '/some/home/native');
    expect(readFileSync(join(base, 'home'), 'utf8')).toBe('/some/home/native\n');
  });
});

describe.runIf(process.getuid?.() === 0)('stale runtime folders of other homes (as root)', () => {
  it('are reported as one leftover and removed, leaving the ones in use', async () => {
    const own = join(scratch, 'own', 'native');
    const gone = join(scratch, 'gone-home', 'native');
    const idle = join(scratch, 'idle-home', 'native');
    const busy = join(scratch, 'busy-home', 'native');
    mkdirSync(idle, { recursive: true });
    mkdirSync(join(busy, 'workspaces', 'ws-9'), { recursive: true });
    const stale = [
      plantBase(tagOf(gone), gone, ['runtime/ws-1/', 'runtime/ws-1/passwd']),
      plantBase(tagOf(idle), idle, []),
      plantBase(randomBytes(5).toString('hex'), null, ['runtime/passwd', 'runtime/headspace-exec']),
    ];
    const kept = [plantBase(tagOf(busy), busy, ['runtime/ws-9/', 'runtime/ws-9/passwd']), plantBase(randomBytes(5).toString('hex'), null, ['fs/ws-7/'])];

    const patient = createNativeProvider({ root: own, mountBase: join(run, tagOf(own)), sweepOtherHomes: true, staleBaseAgeMs: 60 * 60_000 });
    expect((await patient.leftovers!()).filter((l) => l.target.startsWith(`${run}/{`))).toEqual([]); // all were just made: too young

    const provider = createNativeProvider({ root: own, mountBase: join(run, tagOf(own)), sweepOtherHomes: true, staleBaseAgeMs: 0 });
    const found = (await provider.leftovers!()).filter((l) => l.target.startsWith(`${run}/{`));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: 'directory', workspaceId: null });
    expect(found[0]!.detail).toContain('3 runtime folder(s)');
    expect(found[0]!.detail).toContain(`its home ${gone} no longer exists`);

    await provider.removeLeftover!(found[0]!);
    for (const dir of stale) expect(existsSync(dir), dir).toBe(false);
    for (const dir of kept) expect(existsSync(dir), dir).toBe(true);
    expect((await provider.leftovers!()).filter((l) => l.target.startsWith(`${run}/{`))).toEqual([]);
  });

  it('are not a leftover of a provider that does not sweep other homes', async () => {
    plantBase(randomBytes(5).toString('hex'), null, []);
    const own = join(scratch, 'own-2', 'native');
    const provider = createNativeProvider({ root: own, mountBase: join(run, tagOf(own)), staleBaseAgeMs: 0 });
    expect((await provider.leftovers!()).filter((l) => l.target.startsWith(`${run}/{`))).toEqual([]);
  });
});
