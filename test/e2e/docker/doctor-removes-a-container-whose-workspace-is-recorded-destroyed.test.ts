/**
 * A destroy records its workspace destroyed when the engine answered the
 * container's removal with an error it could not read as "gone" or "in
 * use": the removal is "unverified", and the container and volume may live
 * on. Nothing named them again: doctor never asked the engine which
 * workspace containers it holds. It now does, and a container whose
 * workspace is recorded destroyed is a safe repair (the destroy already
 * passed the artifact guards); apply removes it and its volume.
 *
 * The engine's odd answer is not something a test can ask of a real
 * engine, so the record is moved to destroyed by hand, as that destroy
 * leaves it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { rootTagOf } from '../../../src/providers/docker/docker-provider.js';
import { cli, makeHome } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv();
const container = `hs-${rootTagOf(join(home, 'docker'))}-kept`;
afterAll(async () => {
  if (readiness.ready) execFileSync('docker', ['rm', '-f', '-v', container], { env: { ...process.env, ...env }, stdio: 'ignore' });
  await cleanup();
});

/** Whether the engine still holds the container. */
function held(): boolean {
  try {
    execFileSync('docker', ['container', 'inspect', container], { env: { ...process.env, ...env }, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(readiness.ready)(`doctor and a docker workspace recorded destroyed${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('names the container the engine still holds, and a repair with apply removes it', () => {
    expect(cli(home, ['create', '--workspace-id', 'kept'], env).code).toBe(0);
    const db = new Database(join(home, 'state.db'));
    db.prepare("UPDATE workspaces SET state = 'destroyed' WHERE id = 'kept'").run();
    db.close();
    expect(held()).toBe(true);

    const doctor = cli(home, ['doctor'], env);
    expect(doctor.stdout).toContain('the docker provider still holds workspace kept, which is recorded destroyed');

    const applied = cli(home, ['doctor', '--repair', '--apply', '--verify'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('repaired: removed workspace kept at the docker provider (removed: runtime, storage)');
    expect(held()).toBe(false);
  });
});
