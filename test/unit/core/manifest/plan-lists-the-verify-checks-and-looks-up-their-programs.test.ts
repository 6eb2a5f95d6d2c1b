/**
 * plan lists a manifest's verify checks (#17 with #16) as steps, in the
 * manifest's order, each naming the job it is judged after (the last setup
 * command's, or the no-op job's when there is none), and looks up each check
 * command's program in the profile the way it does a setup command's: a
 * program the profile lacks is a FAILED readiness check, and prepare
 * refuses it before anything is made.
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

const texts = (findings: unknown[]) => findings.map((f) => (typeof f === 'string' ? f : (f as { text: string }).text));

describe('plan with a verify section', () => {
  it('lists each check after the last setup command, with its program looked up in the profile', async () => {
    t = makeTestEngine();
    project = makeProject();
    const file = project.write(
      'headspace.yml',
      'schema: headspace.workspace/v1\nid: w\nprovider: fake\nsetup:\n  - argv: [echo, one]\n  - argv: [write, out.txt, two]\nverify:\n  - command: "cat \'out.txt\'"\n  - file: out.txt\n    sha256: "sha256:3FC4CCFE745870E2C0D99F71F30FF0656C8DEDD41CC1D7D3D376B0DBE685E2F3"\n  - output: "^two$"\n',
    );
    const found = texts((await t.engine.plan({ file })).key_findings);
    expect(found).toContain('ok verify[0] cat: found at /fake/bin/cat in the host profile');
    expect(found).toContain('ok verify job true: found at /fake/bin/true in the host profile');
    expect(found).toContain('verify[0] (verify) cat out.txt: judged after setup[1]');
    expect(found).toContain('verify[1] (expect-file) out.txt=sha256:3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3: judged after setup[1]');
    expect(found).toContain('verify[2] (expect-output) ^two$: judged after setup[1]');
    expect(found).toContain('ready: true');
  });

  it('names the no-op job when there is no setup command', async () => {
    t = makeTestEngine();
    project = makeProject();
    const file = project.write('headspace.yml', 'schema: headspace.workspace/v1\nid: w\nprovider: fake\nverify:\n  - file: a.txt\n');
    expect(texts((await t.engine.plan({ file })).key_findings)).toContain('verify[0] (expect-file) a.txt: judged after a no-op job (true)');
  });

  it('fails readiness for a check program the profile lacks, and prepare refuses before making anything', async () => {
    t = makeTestEngine();
    project = makeProject();
    const file = project.write('headspace.yml', 'schema: headspace.workspace/v1\nid: w\nprovider: fake\nverify:\n  - command: [pytest, -q]\n');
    const found = texts((await t.engine.plan({ file })).key_findings);
    expect(found).toContain('FAILED verify[0] pytest: pytest is not on the PATH of the host profile on fake');
    expect(found).toContain('ready: false (1 check(s) failed)');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({ message: expect.stringMatching(/verify\[0\] runs pytest, which is not on the PATH/) });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
