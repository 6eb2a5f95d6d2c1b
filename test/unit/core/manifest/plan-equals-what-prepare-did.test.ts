/**
 * prepare (#17) does exactly what plan announced: the same steps, the same
 * digests; and the workspace then holds what they say — the inputs at their
 * destinations, the artifacts declared, the setup commands run with the
 * manifest's env (values never recorded), a receipt kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { EXAMPLE_FILES, makeProject } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

const steps = (pkg: ResultPackage) =>
  pkg.key_findings.filter((f) => typeof f === 'object' && f.kind === 'step').map((f) => ({ ...(f as Record<string, unknown>) }));

describe('prepare', () => {
  it('does the steps plan listed, with the same digests, and the workspace holds them', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    const call = { file: join(project.dir, 'headspace.yml'), env: { PI_TOKEN: 'tok-123', UNRELATED: 'x' } };
    const plan = await t.engine.plan(call);
    const prepared = await t.engine.prepare(call);
    expect(prepared.status).toBe('success');
    expect(steps(prepared)).toEqual(steps(plan));
    expect(prepared.provenance.workspace_id).toBe('pi-digits');
    expect(prepared.provenance.inputs.map((i) => [i.destination, i.sha256])).toEqual(
      steps(plan)
        .filter((s) => s.step === 'copy')
        .map((s) => [s.type === 'directory' ? `${String(s.to)}/` : s.to, s.sha256]),
    );

    const files = await t.engine.listFiles({ workspaceId: 'pi-digits' });
    const names = files.key_findings.filter((f) => typeof f === 'object').map((f) => (f as { path?: string }).path);
    expect(names).toEqual(expect.arrayContaining(['code/pi.py', 'code/util/helpers.py', 'data/seed.txt', 'out/pi.txt']));
    const inspected = await t.engine.inspect({ handle: 'pi-digits' });
    expect(inspected.artifacts.map((a) => [a.name, a.purpose])).toEqual([['out/pi.txt', 'the digits']]);
    // The second setup command printed the env value: it reached the job, and the receipt records names only.
    const status = await t.engine.status({ workspaceId: 'pi-digits' });
    expect(status.evidence[0]?.excerpt).toContain('tok-123');
    const receipt = readFileSync(join(t.home, 'receipts', 'pi-digits.json'), 'utf8');
    expect(JSON.parse(receipt)).toMatchObject({
      workspace_id: 'pi-digits',
      env_names: ['PI_MODE', 'PI_TOKEN'],
      setup_jobs: [expect.any(String), expect.any(String)],
    });
    expect(receipt).not.toContain('tok-123');
    expect(receipt).not.toContain('fast');
    expect(existsSync(join(t.home, 'receipts'))).toBe(true);
  });
});
