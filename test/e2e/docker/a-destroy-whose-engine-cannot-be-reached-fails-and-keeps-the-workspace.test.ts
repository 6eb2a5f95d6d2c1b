/**
 * A docker destroy whose engine cannot be reached (stopped, its socket gone,
 * DOCKER_HOST pointing elsewhere) fails with exit 7 and leaves the workspace
 * recorded as it was; once the engine answers, destroying it again finishes
 * it. It recorded the workspace destroyed, its runtime and storage
 * "unverified", while its container and volume lived on with nothing left to
 * find them (red team, session 19; an engine that accepts and never answers
 * was handled so in session 18, a stopped one was not). When that engine is
 * gone for good, destroy with abandon records the workspace destroyed
 * anyway, and doctor removes what was left once an engine answers for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';
import { findingTexts } from '../../helpers/result-packages.js';
import type { ResultPackage } from '../../../src/core/result/result-package.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const nowhere = mkdtempSync(join(tmpdir(), 'hs-no-engine-'));
const env = dockerCliEnv();
// The same home and workspace, with DOCKER_HOST at a socket path nothing listens on.
const unreachable = { ...env, DOCKER_HOST: `unix://${join(nowhere, 'docker.sock')}` };
afterAll(async () => {
  if (readiness.ready) {
    cli(home, ['destroy', 'far', '--force'], env);
    // What an abandon left, if its test stopped before doctor removed it.
    cli(home, ['doctor', '--repair', '--apply'], env);
  }
  await cleanup();
  rmSync(nowhere, { recursive: true, force: true });
});

describe.runIf(readiness.ready)(`docker destroy without an engine${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('fails with exit 7, keeps the workspace as it was, and a destroy once the engine answers finishes it', () => {
    expect(cli(home, ['create', '--workspace-id', 'far'], env).code).toBe(0);
    const failed = cli(home, ['destroy', 'far'], unreachable);
    expect(failed.code, failed.stdout + failed.stderr).toBe(7);
    expect(failed.stdout + failed.stderr).toMatch(/the Docker Engine failed answering about the workspace container/);
    const listed = JSON.parse(cli(home, ['ls', '--json'], env).stdout) as ResultPackage;
    expect(findingTexts(listed).find((f) => f.startsWith('far:'))).toMatch(/ready/);
    const done = cli(home, ['destroy', 'far'], env);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('removed: runtime, storage');
  });

  it('with abandon, records it destroyed, and doctor removes its container once the engine answers again', () => {
    expect(cli(home, ['create', '--workspace-id', 'left'], env).code).toBe(0);
    const refused = cli(home, ['destroy', 'left'], unreachable);
    expect(refused.code).toBe(7);
    expect(refused.stdout + refused.stderr).toContain(
      'destroy with abandon (from the command line or the library; not offered over MCP) records the workspace destroyed',
    );
    const abandoned = cli(home, ['destroy', 'left', '--abandon'], unreachable);
    expect(abandoned.code, abandoned.stdout + abandoned.stderr).toBe(0);
    expect(abandoned.stdout).toContain('workspace left was recorded destroyed; its removal on docker failed and was abandoned');
    expect(abandoned.stdout).toContain('unverified: runtime, storage');
    const doctor = cli(home, ['doctor'], env);
    expect(doctor.stdout).toContain('the docker provider still holds workspace left, which is recorded destroyed');
    const applied = cli(home, ['doctor', '--repair', '--apply', '--verify'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('repaired: removed workspace left at the docker provider (removed: runtime, storage)');
  });
});
