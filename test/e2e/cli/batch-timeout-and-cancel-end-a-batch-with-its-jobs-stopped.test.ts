/**
 * A batch's own --timeout ends it with status timeout (exit 4) and
 * `batch cancel` with status cancelled (exit 5) (#16): either way its running
 * jobs are stopped (their records read cancelled) and its queued jobs never
 * start. The cleanup's gone time counts from the timeout or the cancel (no
 * job decided), and a second cancel of the finished batch returns its result
 * as it stands, with its exit code, saying that it changed nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { groupIdOf, memberLines, runBatch, type BatchPackage } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const jobs = [
  { workspace: 'pool', command: 'block', name: 'a' },
  { workspace: 'pool', command: 'block', name: 'b' },
  { workspace: 'pool', command: 'true', name: 'queued' },
];

describe('a batch ended from outside its join', () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '2']).code).toBe(0);
  });

  it('times out with exit 4, its running jobs stopped and its queued job never started', () => {
    const run = runBatch(home, ['--strategy', 'all', '--concurrency', '2', '--timeout', '0.5'], jobs);
    expect(run.code, run.stderr).toBe(4);
    expect(run.pkg!.status).toBe('timeout');
    expect(memberLines(run.pkg!).map((l) => l.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(run.stdout).toContain("cancelled before it started: the batch's timeout ran out");
    // No job decided a timeout: the losers' gone time counts from the timeout, never from "the deciding job".
    expect(run.stdout).not.toContain('deciding job');
    expect(run.stdout).toMatch(/every loser gone \d+ ms after the batch's timeout ran out/);
  });

  it('is cancelled by batch cancel with exit 5, its running jobs stopped and its queued job never started', async () => {
    const started = runBatch(home, ['--strategy', 'all', '--concurrency', '2', '--detach'], jobs);
    expect(started.code, started.stderr).toBe(0);
    const group = groupIdOf(started.pkg!);
    const running = () => memberLines(JSON.parse(cli(home, ['batch', 'status', group, '--json']).stdout) as BatchPackage).filter((l) => l.status === 'running');
    for (let i = 0; i < 200 && running().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    const cancelled = cli(home, ['batch', 'cancel', group, '--json']);
    expect(cancelled.code, cancelled.stderr).toBe(5);
    const pkg = JSON.parse(cancelled.stdout) as BatchPackage;
    expect(pkg.status).toBe('cancelled');
    const lines = memberLines(pkg);
    expect(lines.map((l) => l.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    for (const line of lines.slice(0, 2)) expect(JSON.parse(cli(home, ['inspect', line.id!, '--json']).stdout).status).toBe('cancelled');
    expect(lines[2]!.text).toContain('cancelled before it started: the batch was cancelled');
    expect(cancelled.stdout).toMatch(/every loser gone \d+ ms after the cancel/);
    // A second cancel changes nothing and says so: the finished batch's own result, status and exit code (cancelled, 5).
    const again = cli(home, ['batch', 'cancel', group]);
    expect(again.code).toBe(5);
    expect(again.stdout).toContain('the batch had already finished (cancelled) before this cancel, which changed nothing');
    expect(again.stdout).not.toContain('nothing to cancel');
  });
});
