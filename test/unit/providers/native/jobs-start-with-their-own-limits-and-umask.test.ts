/**
 * A job starts with the limits and umask headspace sets for it, never the
 * caller's (red team 2, item 1): run from a process with core dumps
 * unlimited, 20000 open files, an unlimited stack and umask 000, the job
 * still sees core 0/0, its own open-file and process limits, an 8 MiB stack
 * and umask 022, and a file it makes is -rw-r--r--. The shim never raises a
 * limit past the hard limit it inherited (that needs CAP_SYS_RESOURCE): a
 * caller's lower hard limit is kept.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultExecHelperPath } from '../../../../src/providers/native/exec-helper.js';
import { nofileHard } from '../../../../src/providers/native/plan-rlimits.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

// dash: -p is its process limit (RLIMIT_NPROC).
const REPORT = `for l in c n s l p; do echo "soft-$l $(ulimit -S$l)"; echo "hard-$l $(ulimit -H$l)"; done
echo "umask $(umask)"
touch /workspace/made && ls -l /workspace/made | cut -c1-10 | sed 's/^/mode /'`;

/** This process's own limits as prlimit prints them (RESOURCE SOFT HARD, raw numbers). */
function ownLimits(): string {
  return execFileSync('prlimit', ['--pid', String(process.pid), '--raw', '--noheadings', '--output', 'RESOURCE,SOFT,HARD'], { encoding: 'utf8' });
}

describe.runIf(readiness.ready)(`job limits and umask${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  let ws: NativeFixture;
  let restore: string[] = [];
  let umaskBefore = 0o022;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((policy) => (policy.budget.pidsLimit = 64));
    // Soft limits up to their hard limits (no privilege needed), and lowered back afterwards.
    const before = ownLimits();
    restore = ['CORE', 'NOFILE', 'STACK'].map((name) => {
      const [, soft, hard] = before
        .split('\n')
        .find((line) => line.trim().startsWith(`${name} `))!
        .trim()
        .split(/\s+/);
      return `--${name.toLowerCase()}=${soft}:${hard}`;
    });
    execFileSync('prlimit', ['--pid', String(process.pid), '--core=unlimited', '--nofile=20000', '--stack=unlimited']);
    umaskBefore = process.umask(0);
  });
  afterAll(async () => {
    process.umask(umaskBefore);
    if (restore.length > 0) execFileSync('prlimit', ['--pid', String(process.pid), ...restore]);
    await ws?.dispose();
  });

  it("sets the job's own limits and umask, whatever the caller had", async () => {
    const { outcome, stdout, stderr } = await ws.run(['sh', '-c', REPORT]);
    expect(outcome.exitCode, stderr).toBe(0);
    const seen = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    expect(seen).toMatchObject({
      'soft-c': '0',
      'hard-c': '0',
      'soft-n': String(Math.min(1024, nofileHard(64))),
      'hard-n': String(nofileHard(64)),
      'soft-s': '8192',
      'hard-s': '65536',
      'soft-l': '64',
      'hard-l': '64',
      'soft-p': '65',
      'hard-p': '65',
      umask: '0022',
      mode: '-rw-r--r--',
    });
  });
});

describe.runIf(process.platform === 'linux')('the job entry with a lower inherited hard limit', () => {
  it('keeps the lower hard limit instead of failing or raising it', () => {
    const out = execFileSync(
      'prlimit',
      [
        '--nofile=100:200',
        '--',
        defaultExecHelperPath(),
        '--rlimit',
        'NOFILE',
        '1024',
        '4096',
        '--rlimit',
        'CORE',
        '0',
        '0',
        '--umask',
        '027',
        '--',
        'sh',
        '-c',
        'echo $(ulimit -Sn) $(ulimit -Hn) $(ulimit -Hc) $(umask)',
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('200 200 0 0027');
  });

  it('refuses an unknown limit name or a value that is not a count, exit 125, before running anything', () => {
    for (const args of [
      ['--rlimit', 'BOGUS', '1', '1'],
      ['--rlimit', 'NOFILE', '-1', '10'],
      ['--umask', '9'],
    ]) {
      let status = 0;
      try {
        execFileSync(defaultExecHelperPath(), [...args, '--', 'sh', '-c', 'echo ran'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch (error) {
        status = (error as { status: number }).status;
        expect((error as { stdout: string }).stdout).toBe('');
      }
      expect(status, args.join(' ')).toBe(125);
    }
  });
});
