/**
 * On native, the memory figure is the workspace cgroup's own: a job holding
 * most of a 128 MiB budget ends a watch with budget_near for memory (exit 6)
 * while the job itself runs on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['stop', 'hungry', '--apply'], env);
  cli(home, ['destroy', 'hungry'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`watch on native near the memory budget${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('reports budget_near for memory', async () => {
    expect(cli(home, ['create', '--workspace-id', 'hungry', '--memory-bytes', '128M', '--wall-clock-seconds', '60'], env).code).toBe(0);
    const hold = 'import time\nb = bytearray(118 * 1024 * 1024)\nprint("holding", flush=True)\ntime.sleep(50)';
    const job = cliAsync(home, ['run', 'hungry', 'python3', '-c', hold], env);
    const watched = cli(home, ['watch', 'hungry', '--for', '40', '--every', '0.5', '--json'], env);
    expect(watched.code, watched.stdout + watched.stderr).toBe(6);
    const report = JSON.parse(watched.stdout.trimEnd().split('\n').at(-1)!) as {
      key_findings: Array<{ kind?: string; code?: string; limit?: string; used?: number }>;
    };
    const violation = report.key_findings.find((f) => f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'budget_near', limit: 'memory' });
    expect(violation!.used).toBeGreaterThanOrEqual(0.9 * 128 * 1024 * 1024);
    expect(cli(home, ['stop', 'hungry', '--apply'], env).code).toBe(5);
    expect((await job).code).toBe(5);
  }, 90_000);
});
