/**
 * On the docker provider, a listing streams every file's data through the
 * engine to its apparent size, so `ls-files` of a 0-byte sparse file of
 * 20 GiB used to run on without end, on the host's cpu and outside every
 * budget (#19 item 3). It is now refused at once (exit 3), naming the file
 * and the remedy, and a narrower path that leaves it out lists as before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv();
afterAll(async () => {
  if (readiness.ready) cli(home, ['destroy', 'sparse', '--force'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`docker ls-files of a sparse file${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('refuses past the bound, naming the file, and lists a narrower path', () => {
    expect(cli(home, ['create', '--workspace-id', 'sparse'], env).code).toBe(0);
    const made = cli(home, ['run', 'sparse', 'sh', '-c', 'mkdir d e && truncate -s 20G d/sparse && echo hi > e/small && echo made'], env);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const started = Date.now();
    const listed = cli(home, ['ls-files', 'sparse'], env);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(listed.code, listed.stdout + listed.stderr).toBe(3);
    expect(listed.stderr).toContain("'d/sparse' reads as 21474836480 bytes");
    expect(listed.stderr).toContain('sparse file');
    expect(listed.stderr).toContain('list a narrower path');
    const narrower = cli(home, ['ls-files', 'sparse', 'e'], env);
    expect(narrower.code, narrower.stdout + narrower.stderr).toBe(0);
    expect(narrower.stdout).toContain('e/small');
  });
});
