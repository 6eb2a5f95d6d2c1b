/**
 * An engine outage at create — bubblewrap gone, a mount that fails — is an
 * infrastructure failure (exit 7), not policy_denied (exit 3, kept for a
 * policy the host cannot back). An exit-7 error names no host path and no
 * loop device, and always carries a remediation. Driven through the library
 * with the real native provider, pointed at a bwrap that does not exist, and
 * (as root, with per-workspace filesystems) at a mount point something else
 * already holds.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../src/core/engine.js';
import { EngineError } from '../../../src/core/errors.js';
import { exitCodeOf } from '../../../src/core/errors.js';
import { createNativeProvider, type NativeProviderOptions } from '../../../src/providers/native/native-provider.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const HOST_PATH = /(^|[\s'"(=:])\/[A-Za-z0-9._-]/;

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function engineWith(options: Partial<NativeProviderOptions>): { engine: Engine; home: string } {
  const home = mkdtempSync(join(tmpdir(), 'hs-outage-'));
  const provider = () => createNativeProvider({ root: join(home, 'native'), stateHome: home, ...options });
  const engine = createEngine({ home, version: '0.0.0-test', defaultProvider: 'native', providers: { native: provider } });
  cleanups.push(async () => {
    engine.close();
    // Should a create wrongly succeed, take its mount and cgroups down with it, not only the folder.
    const native = provider();
    for (const id of await native.listWorkspaces()) await native.remove(id).catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  });
  return { engine, home };
}

async function refusal(engine: Engine, workspaceId: string): Promise<EngineError> {
  const error = await engine.create({ workspaceId }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

function expectOutage(error: EngineError): void {
  expect(error.category, error.message).toBe('infrastructure_failure');
  expect(exitCodeOf(error.category)).toBe(7);
  expect(error.message).not.toMatch(HOST_PATH);
  expect(error.message).not.toMatch(/loop\d/);
  expect(error.hint ?? '').not.toBe('');
}

describe.runIf(process.platform === 'linux')('an engine outage at create', () => {
  it('is exit 7 with a remediation when bubblewrap is missing, naming no host path', async () => {
    const { engine } = engineWith({ bwrapPath: '/nonexistent/headspace-test/bwrap' });
    const error = await refusal(engine, 'no-bwrap');
    expectOutage(error);
    expect(error.message).toMatch(/bubblewrap|bwrap/);
    expect(error.hint).toMatch(/bubblewrap/);
    // Nothing is left holding the id.
    expect((await engine.ls({ all: true })).key_findings).toEqual([]);
  });

  it.runIf(readiness.ownFilesystem)('is exit 7 with a remediation when the workspace mount fails, naming no host path or loop device', async () => {
    const base = mkdtempSync(join(tmpdir(), 'hs-outage-mounts-'));
    const taken = join(base, 'fs', 'mount-taken');
    mkdirSync(taken, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', taken]);
    cleanups.push(() => {
      execFileSync('umount', [taken]);
      rmSync(base, { recursive: true, force: true });
    });
    const { engine } = engineWith({ mountBase: base });
    expectOutage(await refusal(engine, 'mount-taken'));
  });
});
