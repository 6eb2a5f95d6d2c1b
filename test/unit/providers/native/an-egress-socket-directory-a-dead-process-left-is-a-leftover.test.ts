/**
 * #18 F3: the red team found /tmp/hs-egress-* directories left behind. A
 * job's egress socket directory goes with its proxy's close; one whose
 * process died (kill -9 of the engine or the supervisor) is a native
 * leftover that doctor lists and removes, and one whose process is alive is
 * left alone.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEgressDir } from '../../../../src/core/network/egress-dirs.js';
import { nativeLeftovers } from '../../../../src/providers/native/leftovers.js';
import { layoutOf } from '../../../../src/providers/native/layout.js';

const made: string[] = [];
afterEach(() => {
  for (const p of made.splice(0)) rmSync(p, { recursive: true, force: true });
});

describe('an egress socket directory', () => {
  it('is a leftover once its process is gone, removed by the repair, and left alone while it lives', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hs-egress-left-'));
    made.push(home);
    const live = makeEgressDir(home, 'ws-live');
    const dead = live.replace(`+${process.pid}+ws-live+`, '+2147483646+ws-dead+');
    made.push(live, dead);
    renameSync(makeEgressDir(home, 'ws-live'), dead);
    const sweeper = nativeLeftovers({
      layout: layoutOf(join(home, 'native')),
      mountBase: join(home, 'no-mount-base'),
      driver: async () => undefined,
      killTimeoutMs: 1000,
      stateHome: home,
    });
    const found = (await sweeper.list()).filter((l) => l.target.includes('+'));
    expect(found).toEqual([expect.objectContaining({ kind: 'directory', workspaceId: 'ws-dead', target: dead })]);
    await sweeper.remove(found[0]!);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    // Another home's directories are never this home's leftovers.
    const other = nativeLeftovers({
      layout: layoutOf(join(home, 'x')),
      mountBase: join(home, 'no'),
      driver: async () => undefined,
      killTimeoutMs: 1000,
      stateHome: `${home}-other`,
    });
    expect((await other.list()).filter((l) => l.target.includes('+'))).toEqual([]);
  });
});
