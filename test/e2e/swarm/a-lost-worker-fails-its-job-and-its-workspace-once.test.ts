/**
 * Node loss on the test swarm: a disposable worker (n4, added for this test
 * and kept to itself by placement constraints) is power-cut while a job runs
 * in the workspace Swarm placed on it. The job ends infrastructure_failure
 * (exit 7) with one terminal record, the workspace moves to failed once with
 * the node named as the reason, and nothing is re-run: the service still has
 * its one task, on the dead node.
 */
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { swarmReadiness } from '../../helpers/swarm-readiness.js';
import { disposableNode } from '../../helpers/swarm-nodes.js';

const readiness = await swarmReadiness();
const { home, cleanup } = makeHome();
const node = disposableNode(readiness.state, 'n4');
const env: Record<string, string> = { HEADSPACE_PROVIDER: 'swarm', HEADSPACE_SWARM_HOST: readiness.host, HEADSPACE_SWARM_CONSTRAINTS: node.constraints };

beforeAll(() => {
  if (readiness.ready) node.add();
}, 120_000);
afterAll(async () => {
  if (readiness.ready) {
    cli(home, ['destroy', 'lost', '--force'], env);
    node.remove();
  }
  await cleanup();
}, 120_000);

describe.runIf(readiness.ready)(`a worker lost mid-job${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('fails the job with exit 7 and the workspace with the node as the reason, each once, and re-runs nothing', async () => {
    const made = cli(home, ['create', '--workspace-id', 'lost', '--memory-bytes', '67108864'], env);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const running = cliAsync(home, ['run', '--job-id', 'job-lost', 'lost', 'sh', '-c', 'echo started; sleep 120'], env);
    await untilAJobRuns(home, 'lost', env);
    node.kill();
    const run = await running;
    expect(run.code, run.stdout + run.stderr).toBe(7);

    const job = JSON.parse(cli(home, ['inspect', 'job-lost', '--json'], env).stdout) as { status: string; key_findings: unknown[] };
    expect(job.status).toBe('infrastructure_failure');
    expect(JSON.stringify(job.key_findings)).toContain('hs-n4');

    const ws = JSON.parse(cli(home, ['inspect', 'lost', '--json'], env).stdout) as { key_findings: unknown[] };
    const findings = JSON.stringify(ws.key_findings);
    expect(findings).toContain('lifecycle state: failed');
    expect(findings).toMatch(/failed because: its node hs-n4 \(198\.18\.0\.14\) went away during job job-lost/);
    // Once: the path reaches failed one time, and the workspace holds one job record.
    expect(findings.match(/-> failed/g)?.length).toBe(1);
    expect(findings.match(/job job-[a-z]+: /g)).toEqual(['job job-lost: ']);

    // Nothing re-run: a failed workspace refuses a new job, and Swarm made no second task elsewhere.
    expect(cli(home, ['run', 'lost', 'true'], env).code).not.toBe(0);
    const manager = new Docker({ socketPath: readiness.host.slice('unix://'.length) });
    const service = (await manager.listServices({ filters: { label: ['dev.headspace.workspace=lost'] } })) as Array<{ ID: string }>;
    expect(service).toHaveLength(1);
    expect(((await manager.listTasks({ filters: { service: [service[0]!.ID] } })) as unknown[]).length).toBe(1);
  }, 120_000);
});
