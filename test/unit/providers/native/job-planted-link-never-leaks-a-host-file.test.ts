/**
 * End to end: a job plants `ln -s /etc/shadow x` (and a linked directory)
 * in its workspace; the provider's read refuses with a user error and never
 * returns the host file.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready)(`a planted link (needs a ready native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace();
  });
  afterAll(async () => ws.dispose());

  it('is refused by read, not followed', async () => {
    const planted = await ws.run(['sh', '-c', 'ln -s /etc/shadow x && ln -s /etc etcdir']);
    expect(planted.outcome.exitCode).toBe(0);
    for (const path of ['x', 'etcdir/shadow', 'etcdir/passwd']) {
      await expect(ws.provider.read(ws.workspaceId, path)).rejects.toMatchObject({ code: expect.stringMatching(/^(BAD_PATH|NOT_A_REGULAR_FILE)$/) });
    }
    const listing = JSON.stringify(await ws.provider.list(ws.workspaceId, '', 100));
    expect(listing).not.toContain(readFileSync('/etc/shadow', 'utf8').slice(0, 20));
  });
});
