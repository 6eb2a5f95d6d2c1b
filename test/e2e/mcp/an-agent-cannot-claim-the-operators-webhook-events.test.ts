/**
 * A webhook subscription's events are the operator's pusher's (`events
 * deliver`): over MCP, where the caller is an agent, a claim or an ack of one
 * is refused before anything changes, so an agent cannot keep the operator's
 * alerts from going out (red team, host surfaces: it claimed and acked the
 * operator's `ops` subscription and `events deliver` never pushed the event).
 * The operator's own CLI still claims from it (a fallback consumer when the
 * receiver is down), and the agent's own pull subscriptions work as before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe("the operator's webhook subscription over MCP", () => {
  it('refuses a claim and an ack, and leaves its events pending', async () => {
    mcp = await connectStdio();
    const home = mcp.home;
    expect(cli(home, ['events', 'subscribe', '--all', '--name', 'ops', '--webhook', 'http://127.0.0.1:9/hook']).code).toBe(0);
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['run', 'w', 'echo', 'hi']).code).toBe(0);

    const claim = await mcp.client.callTool({ name: 'events-claim', arguments: { subscriptionId: 'ops' } });
    expect(claim.isError).toBe(true);
    expect(textOf(claim)).toContain('policy_denied');
    expect(textOf(claim)).toContain('subscription ops pushes its events to a webhook; a claim here would take them from its receiver');
    const ack = await mcp.client.callTool({ name: 'events-ack', arguments: { subscriptionId: 'ops', eventIds: ['ev-1'] } });
    expect(ack.isError).toBe(true);
    expect(textOf(ack)).toContain('an acknowledgement here would take them from its receiver');

    const ls = JSON.parse(cli(home, ['events', 'ls', '--json']).stdout) as { key_findings: Array<{ id: string; pending: number; in_flight: number }> };
    expect(ls.key_findings.find((s) => s.id === 'ops')).toMatchObject({ in_flight: 0 });
    expect(ls.key_findings.find((s) => s.id === 'ops')!.pending).toBeGreaterThan(0);

    // The operator's CLI is not an agent: it may still pull from it.
    const pulled = cli(home, ['events', 'claim', 'ops', '--json']);
    expect(pulled.code, pulled.stderr).toBe(0);
  }, 60_000);
});
