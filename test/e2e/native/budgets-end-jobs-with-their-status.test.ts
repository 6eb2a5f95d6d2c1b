/**
 * On the native provider, through the built bin, budgets are real and each
 * ends the job with its own exit code: memory past the budget exits 8 (the
 * kernel's OOM counter), a fork bomb is held at the pids budget, `sleep 30`
 * with a 1 s wall clock exits 4, and a flood past the output budget is
 * truncated (counted, at most the budget kept, truncated evidence) while the
 * job runs on to its own exit status; a job printing forever is ended by its
 * wall clock. The host and the next job are unaffected.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'budgets'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`native budgets through the CLI${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('creates a small workspace', () => {
    const created = cli(
      home,
      ['create', '--workspace-id', 'budgets', '--memory-bytes', '64M', '--pids-limit', '32', '--output-bytes', '64K', '--wall-clock-seconds', '20'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('memory 64 MiB (enforced by provider)');
  });

  it('exits 8 when a job allocates past its memory budget', () => {
    const run = cli(home, ['run', 'budgets', 'python3', '-c', 'b = bytearray(256 * 1024 * 1024); print(len(b))'], env);
    expect(run.code, run.stdout).toBe(8);
    expect(run.stdout).toContain('resource_exhausted');
  });

  it('holds a fork bomb at the pids budget and ends it', () => {
    const bomb = [
      'import os, time',
      'n = 0',
      'for _ in range(500):',
      '    try:',
      '        if os.fork() == 0:',
      '            time.sleep(30); os._exit(0)',
      '        n += 1',
      '    except OSError as e:',
      '        print(f"fork refused after {n}: {e.strerror}"); break',
      'print(f"forked={n}")',
    ].join('\n');
    const run = cli(home, ['run', 'budgets', 'python3', '-c', bomb], env);
    expect(run.stdout).toMatch(/fork refused after \d+/);
    const forked = Number(/fork refused after (\d+)/.exec(run.stdout)![1]);
    expect(forked).toBeLessThan(32);
    expect(run.code).toBe(0);
  });

  it('exits 4 when sleep 30 meets a 1 s wall clock', () => {
    expect(cli(home, ['destroy', 'budgets'], env).code).toBe(0);
    expect(cli(home, ['create', '--workspace-id', 'budgets', '--wall-clock-seconds', '1', '--output-bytes', '64K'], env).code).toBe(0);
    const started = Date.now();
    const run = cli(home, ['run', 'budgets', 'sleep', '30'], env);
    expect(run.code, run.stdout).toBe(4);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('truncates a flood at the output budget and lets the job end with its own exit status', () => {
    expect(cli(home, ['destroy', 'budgets'], env).code).toBe(0);
    expect(cli(home, ['create', '--workspace-id', 'budgets', '--wall-clock-seconds', '20', '--output-bytes', '64K'], env).code).toBe(0);
    const run = cli(
      home,
      ['run', '--json', '--job-id', 'flood', 'budgets', 'sh', '-c', 'yes flood-line | head -c 3000000; echo after-the-flood >&2; exit 3'],
      env,
    );
    expect(run.code, run.stderr).toBe(6);
    const pkg = JSON.parse(run.stdout) as {
      status: string;
      key_findings: string[];
      evidence: Array<{ truncated: boolean }>;
      resource_usage: { output_bytes: number };
      provenance: { exit_code?: number };
    };
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.exit_code).toBe(3);
    expect(pkg.resource_usage.output_bytes).toBe(3000000 + 'after-the-flood\n'.length);
    expect(pkg.evidence[0]?.truncated).toBe(true);
    expect(pkg.key_findings.join('\n')).toContain('output budget of 64 KiB was reached');
    expect(Buffer.byteLength(cli(home, ['inspect', 'flood', '--logs'], env).stdout)).toBeLessThanOrEqual(64 * 1024);
    const markdown = cli(home, ['inspect', 'flood'], env);
    expect(markdown.stdout).toMatch(/…\[truncated: \d+ of \d+ bytes shown -- full text: /);
  });

  it('ends a job that prints forever by its wall clock, keeping at most the budget', () => {
    expect(cli(home, ['destroy', 'budgets'], env).code).toBe(0);
    expect(cli(home, ['create', '--workspace-id', 'budgets', '--wall-clock-seconds', '2', '--output-bytes', '64K'], env).code).toBe(0);
    const started = Date.now();
    const run = cli(home, ['run', '--json', '--job-id', 'forever', 'budgets', 'sh', '-c', 'yes flood-line'], env);
    expect(run.code, run.stderr).toBe(4);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pkg = JSON.parse(run.stdout) as { resource_usage: { output_bytes: number } };
    expect(pkg.resource_usage.output_bytes).toBeGreaterThan(64 * 1024);
    expect(Buffer.byteLength(cli(home, ['inspect', 'forever', '--logs'], env).stdout)).toBeLessThanOrEqual(64 * 1024);
  });

  it('runs the next job normally afterwards', () => {
    const run = cli(home, ['run', 'budgets', 'python3', '-c', 'print("still fine")'], env);
    // Its result names the cause of an exit 7 (infrastructure_failure), seen now and then in whole runs (#20): the
    // result is on stdout (stderr was empty when it failed again), so both are shown.
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('still fine');
  });
});
