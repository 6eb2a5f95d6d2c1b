/**
 * On native, through the built bin: plan looks each setup command's program
 * up on the host profile's PATH as a job would see it (#17): `sh` and
 * `python3` are found, a program the host lacks is a failed check, and
 * nothing is created.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { makeProject } from '../../helpers/manifest-dir.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const project = makeProject({
  'headspace.yml': `schema: headspace.workspace/v1
id: native-tools
provider: native
setup:
  - argv: [sh, -c, "true"]
  - argv: [python3, --version]
  - argv: [no-such-program-hs17, install]
`,
});
afterAll(async () => {
  project.cleanup();
  await cleanup();
});

describe.runIf(readiness.ready)(`plan on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('finds sh and python3 in the host profile and fails the check for a missing program', () => {
    const planned = cli(home, ['plan', `${project.dir}/headspace.yml`, '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const pkg = JSON.parse(planned.stdout) as { key_findings: Array<{ kind?: string; name?: string; ok?: boolean; text?: string; ready?: boolean }> };
    expect(pkg.key_findings[0]).toMatchObject({ kind: 'readiness', ready: false });
    const check = (name: string) => pkg.key_findings.find((f) => f.kind === 'check' && f.name === name);
    expect(check('setup[0] sh')).toMatchObject({ ok: true, text: expect.stringMatching(/found at \/\S*bin\/sh in the host profile/) });
    expect(check('setup[1] python3')).toMatchObject({ ok: true });
    expect(check('setup[2] no-such-program-hs17')).toMatchObject({ ok: false });
    const prepared = cli(home, ['prepare', `${project.dir}/headspace.yml`, '--json']);
    expect(prepared.code).toBe(1);
    expect(prepared.stderr + prepared.stdout).toContain('setup[2] runs no-such-program-hs17');
    expect(JSON.parse(cli(home, ['ls', '--all', '--json']).stdout).key_findings).toEqual([]);
  }, 60_000);
});
