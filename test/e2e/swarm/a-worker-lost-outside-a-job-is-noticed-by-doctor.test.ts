/**
 * Node loss with no job running (#22): a disposable worker (n5, kept to
 * itself by placement constraints) holding an idle workspace is power-cut.
 * No run meets it, yet doctor, which asks the provider about every
 * workspace, notices it once the manager marks the node down: plain doctor
 * names the workspace lost with the node and changes nothing; doctor
 * --repair --apply records it failed with that reason, which inspect shows,
 * and a new job is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { swarmReadiness } from '../../helpers/swarm-readiness.js';
import { disposableNode, nodeState } from '../../helpers/swarm-nodes.js';

const readiness = await swarmReadiness();
const { home, cleanup } = makeHome();
const node = disposableNode(readiness.state, 'n5');
const env: Record<string, string> = { HEADSPACE_PROVIDER: 'swarm', HEADSPACE_SWARM_HOST: readiness.host, HEADSPACE_SWARM_CONSTRAINTS: node.constraints };

beforeAll(() => {
  if (readiness.ready) node.add();
}, 120_000);
afterAll(async () => {
  if (readiness.ready) {
    cli(home, ['destroy', 'idle', '--force'], env);
    node.remove();
  }
  await cleanup();
}, 120_000);

describe.runIf(readiness.ready)(`a worker lost outside a job${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('is reported by doctor and recorded failed with the node as the reason by doctor --repair --apply', async () => {
    const made = cli(home, ['create', '--workspace-id', 'idle', '--memory-bytes', '67108864'], env);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    expect(cli(home, ['run', 'idle', 'true'], env).code).toBe(0);
    node.kill();

    // The manager marks the node down after its heartbeats stop: polled, never a fixed sleep, and through the manager's
    // own API rather than a doctor a second; then doctor, which asks the same manager, is asked (a few times at most).
    for (let i = 0; i < 180 && (await nodeState(readiness.host, 'n5').catch(() => undefined)) !== 'down'; i++) await new Promise((r) => setTimeout(r, 500));
    let seen = '';
    for (let i = 0; i < 10 && !/workspace idle is recorded as ready but is lost: its node hs-n5/.test(seen); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 1000));
      seen = cli(home, ['doctor', '--provider', 'swarm', '--json'], env).stdout;
    }
    expect(seen).toMatch(/workspace idle is recorded as ready but is lost: its node hs-n5 \(198\.18\.0\.15\)/);
    expect(cli(home, ['inspect', 'idle', '--json'], env).stdout).toContain('lifecycle state: ready');

    const applied = cli(home, ['doctor', '--provider', 'swarm', '--repair', '--apply', '--json'], env);
    expect(applied.stdout).toMatch(/repaired: workspace idle recorded failed: its node hs-n5/);
    const ws = cli(home, ['inspect', 'idle', '--json'], env).stdout;
    expect(ws).toContain('lifecycle state: failed');
    expect(ws).toMatch(/failed because: its node hs-n5 \(198\.18\.0\.15\)/);
    expect(cli(home, ['run', 'idle', 'true'], env).code).not.toBe(0);
  }, 180_000);
});
