/**
 * A crash inside a snapshot operation (#14) leaves a layer directory nothing
 * references (made before meta.json was rewritten) or a checkpoint record's
 * temporary file: doctor names them and --repair removes them, while the
 * workspace's own layers and finished checkpoints are never listed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeNativeWorkspace } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ownFilesystem)(`leftovers of a snapshot operation (needs root and loop devices: ${readiness.storageDetail})`, () => {
  it('names an unreferenced layer and a dead writer’s checkpoint record, removes them, and keeps the live layers', async () => {
    const ws = await makeNativeWorkspace();
    try {
      expect((await ws.run(['sh', '-c', 'echo kept > f'])).outcome.exitCode).toBe(0);
      const facts = await ws.provider.snapshots!.checkpoint(ws.workspaceId, 'cp-kept');
      const imageMount = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[4] ?? '')
        .find((path) => path.endsWith(`/img/${ws.workspaceId}`))!;
      const orphan = join(imageMount, 'layers', 'L0123456789abcdef');
      mkdirSync(orphan);
      const record = join(ws.root, 'workspaces', ws.workspaceId, 'checkpoints', 'cp-half.json.999999999.tmp');
      writeFileSync(record, '{');
      const found = (await ws.provider.leftovers!()).filter((l) => l.workspaceId === ws.workspaceId && l.kind !== 'cgroup');
      expect(found.map((l) => [l.kind, l.target])).toEqual([
        ['directory', orphan],
        ['file', record],
      ]);
      for (const leftover of found) await ws.provider.removeLeftover!(leftover);
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(record)).toBe(false);
      expect(await ws.provider.snapshots!.verify(ws.workspaceId, 'cp-kept', facts.digest)).toBe(true);
      expect((await ws.run(['cat', 'f'])).stdout).toBe('kept\n');
      expect((await ws.provider.leftovers!()).filter((l) => l.workspaceId === ws.workspaceId && l.kind !== 'cgroup')).toEqual([]);
    } finally {
      await ws.dispose();
    }
  });
});
