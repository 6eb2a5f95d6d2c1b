/**
 * The dashboard's destroy and export (#21), with --allow-actions, go through
 * the engine's verbs (an export is digest-verified and lands where asked; a
 * destroy refuses while a declared artifact is unexported, as the verb does)
 * and each is journalled as the dashboard's: intents.actor = 'ui'. The page
 * asks the person to confirm before it posts; that part is the browser test
 * of stop.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../src/api/index.js';
import { makeHome } from '../../helpers/cli.js';
import { startUi, type UiHandle } from '../../helpers/dashboard.js';

const home = makeHome();
const out = mkdtempSync(join(tmpdir(), 'hs-ui-export-'));
let ui: UiHandle;
let workspace: string;

beforeAll(async () => {
  const engine = createHeadspace({ home: home.home, defaultProvider: 'fake' });
  try {
    workspace = (await engine.create({ purpose: 'actions' })).provenance.workspace_id!;
    await engine.run({ workspaceId: workspace, argv: ['write', 'report.txt', 'all', 'good'] });
    await engine.declare({ workspaceId: workspace, name: 'report.txt', purpose: 'the report' });
  } finally {
    engine.close();
  }
  ui = await startUi(home.home, ['--allow-actions']);
}, 30_000);
afterAll(async () => {
  await ui?.stop();
  await home.cleanup();
  rmSync(out, { recursive: true, force: true });
});

const post = async (action: string, body: object) => {
  const response = await fetch(`${ui.base}/api/actions/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ui.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { status?: string; error?: { code: string }; artifacts?: Array<{ digest: string }> } };
};

const journal = () => {
  const db = new Database(join(home.home, 'state.db'), { readonly: true });
  try {
    return db.prepare("SELECT op, actor FROM intents WHERE op IN ('export', 'remove') ORDER BY id").all();
  } finally {
    db.close();
  }
};

describe('dashboard actions', () => {
  it('refuses to destroy while a declared artifact is unexported, then exports it and destroys, journalled as the ui', async () => {
    const refused = await post('destroy', { workspaceId: workspace });
    expect(refused.status).toBe(400); // the verb's user_error, as the CLI's exit 1
    expect(refused.body.error?.code).toBe('WOULD_DISCARD');

    const to = join(out, 'report.txt');
    const exported = await post('export', { workspaceId: workspace, name: 'report.txt', to });
    expect(exported.status).toBe(200);
    expect(exported.body.status).toBe('success');
    const bytes = readFileSync(to);
    expect(bytes.toString()).toBe('all good');
    expect(JSON.stringify(exported.body)).toContain(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);

    const destroyed = await post('destroy', { workspaceId: workspace });
    expect(destroyed.status).toBe(200);
    expect(destroyed.body.status).toBe('success');
    expect(journal()).toEqual([
      { op: 'export', actor: 'ui' },
      { op: 'remove', actor: 'ui' },
    ]);
  });

  it('refuses an action with a missing field as a bad request, changing nothing', async () => {
    const answer = await post('export', { workspaceId: workspace });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('BAD_ARGUMENT');
  });
});
