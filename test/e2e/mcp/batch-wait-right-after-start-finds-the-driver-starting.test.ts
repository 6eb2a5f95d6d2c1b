/**
 * Over MCP the batch tool returns while its detached driver is still
 * starting: neither that result nor a batch-wait that times out right after
 * it says the batch has no live driver; both name the driver. Suggested
 * operator commands read as the CLI spells them (`headspace batch cancel`),
 * never a `headspace batch-cancel` that does not exist.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('batch-wait right after the batch tool', () => {
  it('names the starting driver and the real CLI command', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).content as Array<{ type: string; text: string }>;
    await call('create', { workspaceId: 'ds' });
    const started = (await call('batch', { strategy: 'all', jobs: [{ workspace: 'ds', command: 'sleep 2' }] })).map((c) => c.text).join('\n');
    const group = /bg-[0-9a-f]+/.exec(started)![0];
    const early = (await call('batch-wait', { groupId: group, timeoutSeconds: 1 })).map((c) => c.text).join('\n');
    for (const text of [started, early]) {
      expect(text).not.toContain('driver is gone');
      expect(text).toMatch(/driver pid \d+/);
      expect(text).toContain(`headspace batch cancel with {"groupId":"${group}"}`);
      expect(text).not.toContain('headspace batch-cancel');
    }
    await call('batch-wait', { groupId: group });
  }, 60_000);
});
