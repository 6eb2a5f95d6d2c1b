/**
 * On the docker provider, through the built bin: plan looks each setup
 * command's program up in the profile's image (#17) — through a container
 * created from it and never started, then removed — so `sh` and `python3`
 * are found, a program the image lacks is a failed check, prepare refuses
 * it, and nothing is left behind.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';
import { makeProject } from '../../helpers/manifest-dir.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv();
const project = makeProject({
  'headspace.yml': `schema: headspace.workspace/v1
id: docker-tools
provider: docker
setup:
  - argv: [sh, -c, "true"]
  - argv: [python3, --version]
  - argv: [no-such-program-hs17]
`,
});
afterAll(async () => {
  project.cleanup();
  await cleanup();
});

const lookupContainers = () =>
  execFileSync('docker', ['ps', '-a', '--filter', 'label=dev.headspace.helper=tool-lookup', '--format', '{{.Names}}'], {
    encoding: 'utf8',
    env: { ...process.env },
  }).trim();

describe.runIf(readiness.ready)(`plan on docker${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('finds sh and python3 in the image, fails the check for a missing program, and leaves no container', () => {
    const planned = cli(home, ['plan', `${project.dir}/headspace.yml`, '--json'], env);
    expect(planned.code, planned.stderr).toBe(0);
    const pkg = JSON.parse(planned.stdout) as { key_findings: Array<{ kind?: string; name?: string; ok?: boolean; text?: string; ready?: boolean }> };
    const check = (name: string) => pkg.key_findings.find((f) => f.kind === 'check' && f.name === name);
    expect(check('setup[0] sh')).toMatchObject({ ok: true, text: expect.stringContaining('found at /bin/sh') });
    expect(check('setup[1] python3')).toMatchObject({ ok: true });
    expect(check('setup[2] no-such-program-hs17')).toMatchObject({ ok: false });
    expect(pkg.key_findings[0]).toMatchObject({ kind: 'readiness', ready: false });
    const prepared = cli(home, ['prepare', `${project.dir}/headspace.yml`, '--json'], env);
    expect(prepared.code).toBe(1);
    expect(prepared.stderr + prepared.stdout).toContain('setup[2] runs no-such-program-hs17');
    expect(lookupContainers()).toBe('');
  }, 90_000);
});
