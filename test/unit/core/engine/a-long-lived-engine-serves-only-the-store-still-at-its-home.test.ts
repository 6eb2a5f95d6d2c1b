/**
 * A long-lived engine (serve, mcp, ui, the shared supervisor) opens its
 * store once. When its home is moved, deleted or replaced afterwards, every
 * call went on reading and writing the old file through that connection:
 * `ls` listed workspaces from a moved home, and a `create` recorded one where
 * nobody would look. Each call now first looks that the file at the home is
 * the one it opened, and refuses (STORE_UNAVAILABLE, exit 2) otherwise,
 * saying such an engine must be started again; nothing is written.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createEngine } from '../../../../src/core/engine.js';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { createFakeProvider } from '../../../../src/providers/fake/fake-provider.js';
import { findingTexts } from '../../../helpers/result-packages.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | null = null;
afterEach(() => {
  if (t !== null && existsSync(`${t.home}-moved`)) rmSync(`${t.home}-moved`, { recursive: true, force: true });
  t?.cleanup();
  t = null;
});

const refusal = (home: string) => ({
  code: 'STORE_UNAVAILABLE',
  message: expect.stringContaining(`the state store this process opened is no longer at ${join(home, 'state.db')}`),
  hint: expect.stringContaining('a long-lived engine opened before the move must be started again'),
});

it('refuses every call once its home was moved away, and writes nothing to the moved file', async () => {
  t = makeTestEngine();
  const { engine, home } = t;
  await engine.create({ workspaceId: 'before' });
  renameSync(home, `${home}-moved`);
  const listed = await engine.ls().catch((error: unknown) => error);
  expect(listed).toMatchObject(refusal(home));
  expect(exitCodeOf((listed as { category: 'environment_error' }).category)).toBe(2);
  await expect(engine.create({ workspaceId: 'after' })).rejects.toMatchObject(refusal(home));
  const moved = SqliteStore.open(`${home}-moved`);
  try {
    expect(moved.listWorkspaces().map((w) => w.id)).toEqual(['before']);
  } finally {
    moved.close();
  }
});

it('refuses when another home was made where its home was, and leaves that one alone', async () => {
  t = makeTestEngine();
  const { engine, home } = t;
  await engine.create({ workspaceId: 'old' });
  renameSync(home, `${home}-moved`);
  // Another engine makes a new home at the same path.
  const other = createEngine({ home, version: '0.0.0-test', defaultProvider: 'fake', providers: { fake: () => createFakeProvider() } });
  try {
    await other.create({ workspaceId: 'new' });
    await expect(engine.ls()).rejects.toMatchObject(refusal(home));
    expect(findingTexts(await other.ls()).some((f) => f.startsWith('new:'))).toBe(true);
  } finally {
    other.close();
  }
});

it('serves as ever while its home stays where it was', async () => {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'w' });
  const listed = await engine.ls();
  expect(listed.status).toBe('success');
  expect(findingTexts(listed).some((f) => f.startsWith('w:'))).toBe(true);
});
