/**
 * Jobs get no pseudo-terminal (red team 2, item 2). Every devpts instance
 * but the host's draws on one kernel.pty.max pool, and bwrap 0.8's `--dev`
 * mounts one without `max=`: a workspace that opened /dev/ptmx 3,071 times
 * left every other workspace's allocation failing with ENOSPC. So the plan
 * builds /dev without devpts (no /dev/ptmx, no /dev/pts) and Landlock grants
 * neither; openpty() and `script` fail cleanly, and jobs that need no
 * terminal (pipes, /dev/null, /dev/tty failing as "no controlling
 * terminal") work as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { planBwrap, planDev } from '../../../../src/providers/native/plan-bwrap.js';
import { planJobEntry } from '../../../../src/providers/native/plan-job-entry.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe('the plan', () => {
  it('builds /dev by hand: no bwrap --dev (which mounts devpts), nothing of ptmx or pts', () => {
    const { args } = planBwrap(bwrapPlanInput());
    expect(args).not.toContain('--dev');
    expect(args.filter((a) => /ptmx|\/dev\/pts/.test(a))).toEqual([]);
    expect(planDev().slice(0, 4)).toEqual(['--perms', '0755', '--tmpfs', '/dev']);
    expect(planDev().filter((a, i, all) => all[i - 1] === '--dev-bind' && a.startsWith('/dev/'))).toEqual([
      '/dev/null',
      '/dev/zero',
      '/dev/full',
      '/dev/random',
      '/dev/urandom',
      '/dev/tty',
    ]);
  });

  it('gives Landlock no rule on /dev/ptmx or /dev/pts', () => {
    const entry = planJobEntry({ argv: ['true'], exposures: [], hostPaths: [], budget: defaultPolicy().budget });
    expect(entry.filter((a) => /ptmx|\/dev\/pts/.test(a))).toEqual([]);
  });
});

const ATTEMPTS = `import os, subprocess
for name, fn in (('ptmx', lambda: os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)), ('pts-ptmx', lambda: os.open('/dev/pts/ptmx', os.O_RDWR | os.O_NOCTTY)), ('openpty', os.openpty), ('tty', lambda: os.open('/dev/tty', os.O_RDWR))):
    try: fn(); print(name, 'allocated')
    except OSError as e: print(name, 'refused', e.strerror)
r = subprocess.run(['script', '-qec', 'true', '/dev/null'], capture_output=True)
print('script exit', r.returncode)
print('pipe', subprocess.run(['sh', '-c', 'echo piped | cat > /dev/null && echo ok'], capture_output=True, text=True).stdout.strip())`;

describe.runIf(readiness.ready)(`a job${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace();
  });
  afterAll(() => ws?.dispose());

  it('cannot allocate a pty by any way, and script fails, while a pipeline still works', async () => {
    const { outcome, stdout, stderr } = await ws.run(['python3', '-c', ATTEMPTS]);
    expect(outcome.exitCode, stderr).toBe(0);
    expect(stdout).not.toContain('allocated');
    for (const name of ['ptmx', 'pts-ptmx', 'openpty']) expect(stdout).toContain(`${name} refused No such file or directory`);
    // No controlling terminal: the job runs in a new session (bwrap --new-session).
    expect(stdout).toContain('tty refused No such device or address');
    expect(stdout).toMatch(/^script exit [1-9]/m);
    expect(stdout).toContain('pipe ok');
  });
});
