/**
 * The library has one supported entry with explicit named exports. This
 * list is the contract: removing or renaming an export means editing it here
 * in the same change.
 */
import { describe, expect, it } from 'vitest';
import * as api from '../../../src/api/index.js';

describe('public library surface', () => {
  it('exports exactly the pinned names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'DEFAULT_BUDGET',
      'EXIT_CODES',
      'EngineError',
      'ProviderError',
      'RESULT_SCHEMA_VERSION',
      'SECTION_ORDER',
      'categoryOfStatus',
      'createEngine',
      'createFakeProvider',
      'createHeadspace',
      'createVirtualClock',
      'defaultPolicy',
      'exitCodeOf',
      'renderJson',
      'renderMarkdown',
      'sequentialIds',
      'systemClock',
      'verifyWebhook',
    ]);
  });

  it('returns the same result package objects the CLI renders', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const home = mkdtempSync(join(tmpdir(), 'hs-api-'));
    const hs = api.createHeadspace({ home, defaultProvider: 'fake' });
    try {
      const created = await hs.create({ provider: 'fake' });
      const ran = await hs.run({ workspaceId: created.provenance.workspace_id!, argv: ['echo', 'from the library'] });
      expect(ran.status).toBe('success');
      expect(api.renderMarkdown(ran)).toContain('from the library');
      expect(JSON.parse(api.renderJson(ran))).toEqual(ran);
      expect((await hs.destroy({ workspaceId: created.provenance.workspace_id! })).status).toBe('success');
    } finally {
      hs.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
