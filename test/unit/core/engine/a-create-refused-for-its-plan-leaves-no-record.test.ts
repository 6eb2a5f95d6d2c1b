/**
 * A create refused for what it asks (a limit the provider cannot enforce,
 * a host path that is reserved or missing) is refused before the engine
 * records anything: no failed workspace is left behind, no intent is
 * journalled, no job identity is held, and the id stays free, so a second
 * create with the same id and a valid plan succeeds. On fake and native.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../../src/api/index.js';
import type { Engine } from '../../../../src/core/engine.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { removeHome } from '../../../helpers/cli.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { nativeReadiness } from '../../providers/native/native-readiness.js';

const readiness = await nativeReadiness();

/** Nothing recorded under `id`: no workspace row (not even failed) and no intent. */
function expectNothingRecorded(home: string, id: string): void {
  const store = SqliteStore.open(home);
  try {
    expect(store.getWorkspace(id)).toBeUndefined();
    expect(store.openIntents()).toEqual([]);
    expect(store.countIntents()).toBe(0);
  } finally {
    store.close();
  }
}

async function expectRefusedThenFree(engine: Engine, home: string, refused: Parameters<Engine['create']>[0], code: string): Promise<void> {
  await expect(engine.create(refused)).rejects.toMatchObject({ code });
  expectNothingRecorded(home, refused!.workspaceId!);
  const made = await engine.create({ workspaceId: refused!.workspaceId!, ...(refused?.provider ? { provider: refused.provider } : {}) });
  expect(made.status).toBe('success');
  expect(made.key_findings).toContain('lifecycle state: ready');
}

describe('a create refused for its plan on fake', () => {
  let t: TestEngine;
  afterEach(() => t.cleanup());

  it('leaves no record for a limit the provider cannot enforce, and the id stays free', async () => {
    t = makeTestEngine();
    await expectRefusedThenFree(t.engine, t.home, { workspaceId: 'refused-net', network: 'enabled' }, 'POLICY_DENIED');
  });

  it('leaves no record for a host path the provider cannot expose, and the id stays free', async () => {
    t = makeTestEngine();
    await expectRefusedThenFree(t.engine, t.home, { workspaceId: 'refused-path', hostPaths: ['/opt'] }, 'POLICY_DENIED');
  });
});

describe.runIf(readiness.ready && process.getuid?.() === 0)(
  `a create refused for its plan on native (needs a ready native host as root: ${readiness.reason})`,
  () => {
    let home: string;
    let engine: Engine;
    afterEach(async () => {
      engine.close();
      await removeHome(home);
    });

    for (const [why, hostPath, code] of [
      ['a missing host path', '/nonexistent/headspace-test-path', 'BAD_ARGUMENT'],
      ['a reserved host path', '/etc', 'POLICY_DENIED'],
      ['a host path that is not normalised', '/opt/../etc', 'BAD_ARGUMENT'],
    ] as const) {
      it(`leaves no record for ${why}, and the id stays free`, async () => {
        home = mkdtempSync(join(tmpdir(), 'hs-refused-'));
        engine = createHeadspace({ home, defaultProvider: 'native' });
        await expectRefusedThenFree(engine, home, { workspaceId: 'refused', provider: 'native', hostPaths: [hostPath] }, code);
        await engine.destroy({ workspaceId: 'refused' });
      });
    }
  },
);
