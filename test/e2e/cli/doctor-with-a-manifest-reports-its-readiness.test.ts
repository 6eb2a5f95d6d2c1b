/**
 * `doctor FILE` (#17) adds a headspace.yml's readiness to the health report,
 * read-only: `ready: true|false` and each of plan's checks, word for word —
 * a missing input and a setup program the profile lacks are FAILED checks —
 * and nothing is created.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { makeProject } from '../../helpers/manifest-dir.js';

const { home, cleanup } = makeHome();
const project = makeProject({
  'headspace.yml': 'schema: headspace.workspace/v1\nid: checked\nprovider: fake\ninputs:\n  - path: data.txt\nsetup:\n  - argv: [cat, data.txt]\n',
  'data.txt': 'x\n',
  'broken.yml': 'schema: headspace.workspace/v1\nid: broken\nprovider: fake\ninputs:\n  - path: missing.txt\nsetup:\n  - argv: [pip, install, x]\n',
});
afterAll(async () => {
  project.cleanup();
  await cleanup();
});

describe('doctor FILE', () => {
  it("reports the manifest's readiness with each of plan's checks, and creates nothing", () => {
    const ready = cli(home, ['doctor', `${project.dir}/headspace.yml`, '--provider', 'fake', '--json']);
    expect(ready.code, ready.stderr).toBe(0);
    const readyPkg = JSON.parse(ready.stdout) as { outcome_summary: string; key_findings: string[] };
    expect(readyPkg.key_findings).toContain(`manifest ${project.dir}/headspace.yml: ready: true`);
    expect(readyPkg.key_findings).toContain('ok setup[0] cat: found at /fake/bin/cat in the host profile');
    expect(readyPkg.outcome_summary).toContain('manifest checked is ready');

    const broken = cli(home, ['doctor', `${project.dir}/broken.yml`, '--provider', 'fake', '--json']);
    const brokenPkg = JSON.parse(broken.stdout) as { outcome_summary: string; key_findings: string[] };
    expect(brokenPkg.key_findings).toContain(`manifest ${project.dir}/broken.yml: ready: false (2 check(s) failed)`);
    expect(brokenPkg.key_findings.some((f) => f.startsWith('FAILED inputs[0] missing.txt'))).toBe(true);
    expect(brokenPkg.key_findings.some((f) => f.startsWith('FAILED setup[0] pip'))).toBe(true);
    expect(brokenPkg.outcome_summary).toContain('manifest broken is NOT ready');
    expect(JSON.parse(cli(home, ['ls', '--all', '--json']).stdout).key_findings).toEqual([]);
  });
});
