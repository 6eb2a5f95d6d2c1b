/**
 * plan looks up each setup command's program on the profile's PATH through
 * the provider (#17): one the profile lacks (`pip` where there is no pip)
 * is a failed readiness check, and prepare refuses it before anything is
 * made. A program named by a path is not looked up (an input or an earlier
 * setup command may make it), and plan says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

const manifest = `schema: headspace.workspace/v1
id: tools
provider: fake
setup:
  - argv: [echo, hello]
  - argv: [pip, install, requests]
  - argv: [./build.sh]
`;

const checks = (findings: unknown[]) =>
  findings.filter((f): f is { kind: string; name: string; ok: boolean; text: string } => typeof f === 'object' && (f as { kind?: string }).kind === 'check');

describe('plan and the setup commands’ programs', () => {
  it('reports a program missing from the profile as a failed check, and prepare refuses it with nothing made', async () => {
    t = makeTestEngine();
    project = makeProject({ 'headspace.yml': manifest });
    const file = `${project.dir}/headspace.yml`;
    const plan = await t.engine.plan({ file });
    expect(plan.key_findings[0]).toMatchObject({ kind: 'readiness', ready: false });
    const found = checks(plan.key_findings);
    expect(found.find((c) => c.name === 'setup[0] echo')).toMatchObject({ ok: true, text: expect.stringContaining('found at /fake/bin/echo') });
    expect(found.find((c) => c.name === 'setup[1] pip')).toMatchObject({
      ok: false,
      text: expect.stringContaining('pip is not on the PATH of the host profile on fake'),
    });
    expect(found.find((c) => c.name === 'setup[2] ./build.sh')).toMatchObject({ ok: true, text: expect.stringContaining('a path, not looked up') });
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringContaining('setup[1] runs pip, which is not on the PATH'),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
