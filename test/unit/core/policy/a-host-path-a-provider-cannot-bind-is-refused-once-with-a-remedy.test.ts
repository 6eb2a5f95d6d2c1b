/**
 * A host path asked of a provider that cannot bind one (the fake) is
 * refused (exit 3) in one sentence with a remedy that helps — native, or
 * put — not "cannot enforce filesystem: filesystem: the fake provider cannot
 * enforce filesystem" and a pointer at doctor, as a new user read it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a host path on the fake provider', () => {
  it('is refused once, naming what to do instead', async () => {
    t = makeTestEngine();
    await expect(t.engine.create({ workspaceId: 'hp', hostPaths: ['/tmp'] })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: 'the fake provider cannot bind host paths into a workspace',
      hint: "create it on the native provider, or bring the files in with put or a run's inputs",
    });
  });
});
