/**
 * The network allow-list over MCP (#18): `create {"network": "allow=…"}`
 * makes an allow-list workspace (network simulated on the fake, with the
 * list's digest), a run's result carries the `network: …` summary of its
 * decisions, and `network: "enabled"` comes back as a policy_denied tool
 * error pointing at allow=.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('a network allow-list as tool calls', () => {
  it('is created, used and reported, and open network is refused', async () => {
    mcp = await connectStdio();
    const call = (name: string, args: Record<string, unknown>) => mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    const made = (await call('create', { workspaceId: 'net', network: 'allow=api.test' })).structuredContent as unknown as ResultPackage;
    expect(made.provenance.policy_summary.find((l) => l.name === 'network')).toMatchObject({
      label: 'simulated',
      value: expect.stringMatching(/^allow-list sha256:/),
    });
    const ran = (await call('run', { workspaceId: 'net', argv: ['fetch', 'https://api.test/', '&&', 'fetch', 'https://evil.test/'] }))
      .structuredContent as unknown as ResultPackage;
    expect(ran.key_findings).toContain('network: 1 allowed to 1 host (0 bytes sent, 0 received), 1 denied: evil.test (not in allow-list)');
    const open = await call('create', { workspaceId: 'open', network: 'enabled' });
    expect(open.isError).toBe(true);
    expect(textOf(open)).toContain('policy_denied');
    expect(textOf(open)).toContain('allow=');
  }, 60_000);
});
