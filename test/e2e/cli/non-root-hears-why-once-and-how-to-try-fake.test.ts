/**
 * A user without root or a delegated cgroup runs the built bin (#12 item
 * 12): `create` on native refuses (exit 3) saying why ONCE — the memory,
 * pids and cpu checks that fail for one reason are named together, their
 * detail and remedy once each — names the fix for this kind of host, and
 * suggests the fake provider; `doctor` exits non-zero because the default
 * provider is not ready; and the fake provider works for that user. Run as
 * uid 65534 through setpriv (needs root to switch; skipped otherwise, and
 * skipped where that uid could run native jobs after all).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, assertBuilt } from '../../helpers/cli.js';

const NOBODY = 65534;
const canSwitch = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');
const home = mkdtempSync(join(tmpdir(), 'hs-nonroot-'));
if (canSwitch) chownSync(home, NOBODY, NOBODY);
afterAll(() => rmSync(home, { recursive: true, force: true }));

function asNobody(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  assertBuilt();
  const run = spawnSync('/usr/bin/setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: home, HEADSPACE_HOME: home, ...env },
    timeout: 60_000,
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

// Read from doctor's findings, not its exit code (which is what is under test).
const nativeReadyForNobody = canSwitch && asNobody(['doctor', '--json']).stdout.includes('provider native: ready');

describe.runIf(canSwitch && !nativeReadyForNobody)('native as a user who cannot run it', () => {
  it('refuses create once, with the fix for this host and the fake provider as the way to try', () => {
    const create = asNobody(['create', '--workspace-id', 'n1']);
    expect(create.code, create.stderr).toBe(3);
    expect(create.stdout).toBe('');
    const [error, hint, ...rest] = create.stderr.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(error).toMatch(/^error: policy_denied: the native provider cannot enforce memory, pids, cpu on this host: cgroup-memory, cgroup-pids, cgroup-cpu: /);
    // The shared detail is said once, not once per check.
    const detail = /cgroup-cpu: ([^;]+)/.exec(error!)?.[1] ?? '';
    expect(detail).not.toBe('');
    expect(create.stderr.split(detail).length - 1).toBe(1);
    expect(hint).toMatch(/^hint: .*(root|delegat)/);
    expect(hint).toContain('--provider fake');
    expect(hint!.split('root').length - 1).toBeLessThanOrEqual(2);
  });

  it('makes doctor exit non-zero, with each remedy once', () => {
    const doctor = asNobody(['doctor', '--json']);
    expect(doctor.code).toBe(7);
    const pkg = JSON.parse(doctor.stdout) as { outcome_summary: string; attention: Array<{ kind: string; text: string }>; warnings: string[] };
    expect(pkg.outcome_summary).toContain('the default provider native cannot run here');
    const cgroupRemedies = pkg.attention.map((a) => a.text).filter((a) => a.includes('cgroup-'));
    expect(cgroupRemedies).toHaveLength(1);
    expect(pkg.warnings.join('\n')).toContain('choose the fake provider');
  });

  it('lets the same user try the CLI on the fake provider', () => {
    expect(asNobody(['create', '--workspace-id', 'f1', '--provider', 'fake']).code).toBe(0);
    const run = asNobody(['run', 'f1', 'echo', 'hello from fake']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hello from fake');
  });
});
