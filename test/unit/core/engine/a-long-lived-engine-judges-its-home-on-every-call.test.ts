/**
 * A long-lived engine (serve, mcp, ui, the shared supervisor) opens its store
 * once; its home is judged again on every call, so a home made unsafe after
 * the start (a directory above it opened to others) is refused from the next
 * call on, as a new process would refuse it (red team, session 11: served
 * calls were still answered after a chmod 777 above the home).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../../src/api/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'hs-long-lived-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a long-lived engine', () => {
  it('refuses the first call after a directory above its home became writable by others', async () => {
    const above = join(scratch, 'above');
    mkdirSync(above, { mode: 0o755 });
    const engine = createHeadspace({ home: join(above, 'home'), defaultProvider: 'fake' });
    try {
      expect((await engine.ls()).status).toBe('success');
      chmodSync(above, 0o777);
      await expect(engine.ls()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`${above} is writable`) });
      chmodSync(above, 0o755);
      expect((await engine.ls()).status).toBe('success');
    } finally {
      engine.close();
    }
  });
});
