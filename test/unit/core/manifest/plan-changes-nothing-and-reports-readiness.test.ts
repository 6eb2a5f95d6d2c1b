/**
 * plan (#17) reports what prepare would do and whether it is ready, each
 * check with its outcome, and changes nothing: no workspace in the store or
 * the provider, no receipt. It is the manifest's doctor: a failed check
 * reads ready: false, never a refusal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { EXAMPLE_FILES, makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

type Finding = { kind: string; text: string; [key: string]: unknown };
const findings = (pkg: ResultPackage, kind: string) => pkg.key_findings.filter((f): f is Finding => typeof f === 'object' && f.kind === kind);

describe('plan', () => {
  it('lists the create, each copy with size and digest, the declarations and the setup commands, and creates nothing', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    const pkg = await t.engine.plan({ file: `${project.dir}/headspace.yml`, env: { PI_TOKEN: 'secret-value' } });
    expect(pkg.status).toBe('success');
    expect(findings(pkg, 'readiness')[0]).toMatchObject({ ready: true });
    expect(findings(pkg, 'step').map((s) => s.step)).toEqual(['create', 'copy', 'copy', 'declare', 'setup', 'setup']);
    expect(findings(pkg, 'step')[1]).toMatchObject({ from: 'src', to: 'code', type: 'directory', file_count: 2, size_bytes: 28 });
    expect(findings(pkg, 'step')[2]).toMatchObject({ from: 'data/seed.txt', to: 'data/seed.txt', type: 'file', size_bytes: 3 });
    expect(String(findings(pkg, 'step')[2]!.sha256)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(findings(pkg, 'step')[4]).toMatchObject({ argv: ['write', 'out/pi.txt', '3.1415926535'], env_names: ['PI_MODE', 'PI_TOKEN'] });
    expect(JSON.stringify(pkg)).not.toContain('secret-value');
    expect(pkg.attention.map((a) => a.action?.verb)).toEqual(['prepare']);
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it('reads ready: false naming each failed check (a missing input, an unset env name, a policy the provider cannot enforce)', async () => {
    t = makeTestEngine({ cannotEnforce: ['memory'] });
    project = makeProject(Object.fromEntries(Object.entries(EXAMPLE_FILES).filter(([path]) => path !== 'data/seed.txt')));
    const pkg = await t.engine.plan({ file: `${project.dir}/headspace.yml` });
    expect(pkg.status).toBe('success');
    expect(findings(pkg, 'readiness')[0]).toMatchObject({ ready: false });
    const failed = findings(pkg, 'check')
      .filter((c) => c.ok === false)
      .map((c) => c.name);
    expect(failed).toEqual(['provider fake', 'inputs[1] data/seed.txt', 'env PI_TOKEN']);
    expect(pkg.outcome_summary).toMatch(/not ready, 3 check\(s\) failed/);
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
