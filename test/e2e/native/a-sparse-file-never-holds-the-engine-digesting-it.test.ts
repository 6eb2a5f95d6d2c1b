/**
 * A job can make a file whose apparent size no budget bounds: a sparse file
 * of 100 GiB takes no blocks in a 64 MiB workspace. Host-side code that
 * digests workspace files read every byte of it, so the engine hashed zeros
 * for as long as that took (minutes per 100 GiB). On native, through the
 * built bin: a checkpoint of such a workspace is refused at once as policy
 * (exit 3) naming the file, and once the file is gone it checkpoints; an
 * --expect-file check of such a file is a verifier fault (exit 9), not hours
 * of reading; and settle refuses to carry a fork's sparse file past its
 * per-file bound (exit 3, nothing consumed) rather than read it whole into
 * the engine's memory and write its holes into the parent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'sparse-fork', '--force'], env);
  cli(home, ['destroy', 'sparse', '--force'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`a sparse file on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('makes a checkpoint refuse at once, naming the file, and checkpoints once it is gone', () => {
    expect(cli(home, ['create', '--workspace-id', 'sparse', '--storage-bytes', '64M'], env).code).toBe(0);
    expect(cli(home, ['run', 'sparse', 'truncate', '-s', '100G', 'big.bin'], env).code).toBe(0);
    const started = Date.now();
    const refused = cli(home, ['checkpoint', 'sparse'], env);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain("'big.bin' reads as at least 107374182400 bytes");
    expect(refused.stderr).toContain('remove or truncate');
    expect(Date.now() - started, 'refused without reading 100 GiB of zeros').toBeLessThan(20_000);
    expect(cli(home, ['run', 'sparse', 'rm', 'big.bin'], env).code).toBe(0);
    const made = cli(home, ['checkpoint', 'sparse', '--json'], env);
    expect(made.code, made.stderr).toBe(0);
  });

  it('makes an --expect-file check of it inconclusive (exit 9) rather than read it whole', () => {
    const run = cli(home, ['run', '--expect-file', 'big.bin', '--json', 'sparse', 'truncate', '-s', '100G', 'big.bin'], env);
    expect(run.code, run.stdout).toBe(9);
    const check = JSON.parse(run.stdout).provenance.verification.checks[0];
    expect(check).toMatchObject({ outcome: 'fault', evidence_sha256: null });
    expect(check.detail).toContain("more than the workspace's storage budget");
  });

  it("refuses to settle a fork's sparse file past the per-file bound, consuming nothing", () => {
    expect(cli(home, ['run', 'sparse', 'rm', '-f', 'big.bin'], env).code).toBe(0);
    const parent = 'sparse-parent';
    expect(cli(home, ['create', '--workspace-id', parent, '--storage-bytes', '1G'], env).code).toBe(0);
    try {
      expect(cli(home, ['fork', parent, '--workspace-id', 'sparse-fork'], env).code).toBe(0);
      expect(cli(home, ['run', 'sparse-fork', 'truncate', '-s', '300M', 'big.bin'], env).code).toBe(0);
      const sealed = cli(home, ['seal', 'sparse-fork', '--json'], env);
      expect(sealed.code, sealed.stderr).toBe(0);
      const outputId = /out-[0-9a-f]{12}/.exec(sealed.stdout)![0];
      const refused = cli(home, ['settle', outputId, 'apply'], env);
      expect(refused.code, refused.stderr).toBe(3);
      expect(refused.stderr).toContain('big.bin reads as 314572800');
      expect(refused.stderr).toContain('nothing was applied or consumed');
      expect(cli(home, ['settle', outputId, 'release'], env).code, 'the output is still unsettled').toBe(0);
    } finally {
      cli(home, ['destroy', 'sparse-fork', '--force'], env);
      cli(home, ['destroy', parent, '--force'], env);
    }
  });
});
