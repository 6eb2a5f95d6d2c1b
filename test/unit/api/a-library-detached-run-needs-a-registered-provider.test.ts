/**
 * The library's run({detach: true}) (#15 item 6): with a registered provider
 * it returns running at once and wait returns the job's result; with a
 * provider the caller passed in (which a supervisor, another process, could
 * not rebuild) it is refused before anything is recorded, exit 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeProvider, createHeadspace } from '../../../src/api/index.js';
import { assertBuilt } from '../../helpers/cli.js';

const home = mkdtempSync(join(tmpdir(), 'hs-lib-detach-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a detached run through the library', () => {
  it('runs on a registered provider and wait returns its result', async () => {
    assertBuilt(); // the supervisor runs the built dist
    const engine = createHeadspace({ home, defaultProvider: 'fake' });
    await engine.create({ workspaceId: 'lib' });
    const started = await engine.run({ workspaceId: 'lib', argv: ['echo', 'from-the-library'], detach: true });
    expect(started.status).toBe('running');
    const done = await engine.wait({ jobIds: started.provenance.job_id!, timeoutSeconds: 30 });
    expect(done.status).toBe('success');
    expect(JSON.stringify(done.evidence)).toContain('from-the-library');
    engine.close();
  });

  it('is refused for a provider the caller passed in, and records nothing', async () => {
    const engine = createHeadspace({ home: join(home, 'own'), defaultProvider: 'fake', providers: { fake: () => createFakeProvider() } });
    await engine.create({ workspaceId: 'own' });
    const refused = await engine.run({ workspaceId: 'own', jobId: 'never', argv: ['true'], detach: true }).catch((error: unknown) => error);
    expect((refused as { code: string }).code).toBe('BAD_ARGUMENT');
    expect(String((refused as Error).message)).toContain('a detached run needs a registered provider');
    await expect(engine.inspect({ handle: 'never' })).rejects.toThrow(/no workspace or job never/);
    engine.close();
  });
});
