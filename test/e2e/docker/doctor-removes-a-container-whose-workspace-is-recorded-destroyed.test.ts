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
const nameOf = (id: string) => `hs-${rootTagOf(join(home, 'docker'))}-${id}`;
const container = nameOf('kept');
const dockerEnv = { ...process.env, ...env };
afterAll(async () => {
  if (readiness.ready) {
    for (const c of [container, nameOf('moved'), 'hs-test-volume-holder']) execFileSync('docker', ['rm', '-f', '-v', c], { env: dockerEnv, stdio: 'ignore' });
    execFileSync('docker', ['volume', 'rm', '-f', nameOf('kept-volume')], { env: dockerEnv, stdio: 'ignore' });
  }
  await cleanup();
});

/** Moves a workspace's record to destroyed, as a destroy whose removal the engine left unverified leaves it. */
function recordDestroyed(id: string): void {
  const db = new Database(join(home, 'state.db'));
  db.prepare("UPDATE workspaces SET state = 'destroyed' WHERE id = ?").run(id);
  db.close();
}

/** Whether the engine still holds the container. */
function held(name = container): boolean {
  try {
    execFileSync('docker', ['container', 'inspect', name], { env: dockerEnv, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(readiness.ready)(`doctor and a docker workspace recorded destroyed${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('names the container the engine still holds, and a repair with apply removes it', () => {
    expect(cli(home, ['create', '--workspace-id', 'kept'], env).code).toBe(0);
    recordDestroyed('kept');
    expect(held()).toBe(true);
    // Made again before the repair, on docker or on another provider, it is refused before anything is recorded.
    for (const again of [env, { ...env, HEADSPACE_PROVIDER: 'fake' }]) {
      const refused = cli(home, ['create', '--workspace-id', 'kept'], again);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(refused.stdout + refused.stderr).toContain('workspace kept was destroyed, but the docker provider still holds it');
    }

    const doctor = cli(home, ['doctor'], env);
    expect(doctor.stdout).toContain('the docker provider still holds workspace kept, which is recorded destroyed');

    const applied = cli(home, ['doctor', '--repair', '--apply', '--verify'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('repaired: removed workspace kept at the docker provider (removed: runtime, storage)');
    expect(held()).toBe(false);
  });

  it('names a container whose id the store records on another provider now, and removes it there', () => {
    expect(cli(home, ['create', '--workspace-id', 'moved'], env).code).toBe(0);
    // As a store made before creates asked the destroyed record's provider leaves it: the id made again on fake.
    recordDestroyed('moved');
    const db = new Database(join(home, 'state.db'));
    db.prepare("UPDATE workspaces SET state = 'ready', provider = 'fake' WHERE id = 'moved'").run();
    db.close();
    const applied = cli(home, ['doctor', '--repair', '--apply'], env);
    expect(applied.stdout).toContain('repaired: removed workspace moved at the docker provider');
    expect(held(nameOf('moved'))).toBe(false);
  });

  it("refuses to make a workspace over an earlier one's volume, which doctor removes once nothing uses it", () => {
    const id = 'kept-volume';
    expect(cli(home, ['create', '--workspace-id', id], env).code).toBe(0);
    expect(cli(home, ['run', id, '--', 'sh', '-c', 'echo earlier > old.txt'], env).code).toBe(0);
    // Something else uses the volume, so the destroy retains it.
    const image = JSON.parse(cli(home, ['inspect', id, '--json'], env).stdout).provenance.environment_digest as string;
    execFileSync('docker', ['run', '-d', '--name', 'hs-test-volume-holder', '-v', `${nameOf(id)}:/x`, '--entrypoint', 'sleep', image, '600'], {
      env: dockerEnv,
      stdio: 'ignore',
    });
    const destroyed = cli(home, ['destroy', id], env);
    expect(destroyed.stdout).toContain('retained: storage');
    execFileSync('docker', ['rm', '-f', 'hs-test-volume-holder'], { env: dockerEnv, stdio: 'ignore' });
    const refused = cli(home, ['create', '--workspace-id', id], env);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(`the volume of an earlier docker workspace ${id} is still there, with its files; nothing was created`);
    expect(cli(home, ['doctor', '--repair', '--apply'], env).code).toBe(0);
    expect(cli(home, ['create', '--workspace-id', id], env).code).toBe(0);
    const listed = cli(home, ['ls-files', id], env);
    expect(listed.stdout).not.toContain('old.txt');
    cli(home, ['destroy', id], env);
  });
});
