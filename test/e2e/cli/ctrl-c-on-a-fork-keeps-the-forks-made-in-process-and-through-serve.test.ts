/**
 * Ctrl-C on `fork --count 16` stops between children, the same in-process
 * and through `headspace serve`: exit 5, the result reads cancelled, every
 * fork made is whole and ready, none is left half-made, and no more are made
 * once it is answered. Through serve, every child used to be made after the
 * client had exited 130; in-process, the kill left a child provisioning with
 * an open intent for doctor.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { baseEnv, until } from '../../helpers/serve.js';
import { SqliteStore } from '../../../src/core/store/sqlite-store.js';

const { home, cleanup } = makeHome();
afterAll(async () => {
  cli(home, ['serve', '--stop'], { HEADSPACE_SERVE: 'off' });
  await cleanup();
});

function forksOf(parent: string): { id: string; state: string }[] {
  const store = SqliteStore.open(home);
  try {
    return store
      .listWorkspaces()
      .filter((w) => w.purpose === `fork of ${parent}`)
      .map((w) => ({ id: w.id, state: w.state }));
  } finally {
    store.close();
  }
}

describe.each([
  ['in-process', 'off'],
  ['through serve', 'require'],
])('Ctrl-C on a fork of 16, %s', (_mode, serve) => {
  it('ends cancelled with exit 5, keeping only whole, ready forks', async () => {
    const parent = `p-${serve}`;
    expect(cli(home, ['create', '--workspace-id', parent], { HEADSPACE_PROVIDER: 'fake' }).code).toBe(0);
    // Enough content that each fake child takes a moment to make, so the interrupt lands between the first and the last.
    const file = join(home, `${parent}.bin`);
    writeFileSync(file, Buffer.alloc(128 * 1024, 7));
    expect(cli(home, ['put', parent, file, 'big.bin'], { HEADSPACE_PROVIDER: 'fake' }).code).toBe(0);
    const child = spawn(BIN, ['fork', '--json', parent, '--count', '16'], { env: baseEnv(home, { HEADSPACE_SERVE: serve }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    await until(() => forksOf(parent).some((f) => f.state === 'ready'), 60_000);
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(5);
    const result = JSON.parse(stdout) as { status: string; outcome_summary: string };
    expect(result.status).toBe('cancelled');
    expect(result.outcome_summary).toMatch(/^interrupted: workspace p-\w+ forked into .* only \(\d+ of 16\)/);
    const made = forksOf(parent);
    expect(made.length).toBeGreaterThan(0);
    expect(made.length).toBeLessThan(16);
    expect(made.every((f) => f.state === 'ready')).toBe(true);
    // Nothing goes on being made after the answer (a served call used to carry on to all 16).
    await new Promise((r) => setTimeout(r, 1500));
    expect(forksOf(parent)).toEqual(made);
    const doctor = cli(home, ['doctor', '--json'], { HEADSPACE_PROVIDER: 'fake', HEADSPACE_SERVE: 'off' });
    expect(doctor.stdout).not.toContain('intent #');
  }, 120_000);
});
