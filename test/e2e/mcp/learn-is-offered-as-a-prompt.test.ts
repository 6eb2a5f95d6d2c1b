/**
 * The CLI's `learn` text is offered as the MCP prompt `learn`, introduced
 * for a model using tools: the workflow, the rules (argv recorded verbatim,
 * secrets in env), the result sections, the exit codes and every tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

describe('the learn prompt', () => {
  it('is listed and carries the learn text with every tool and the exit codes', async () => {
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['learn']);
    const { messages } = await mcp.client.getPrompt({ name: 'learn' });
    expect(messages).toHaveLength(1);
    const text = (messages[0]!.content as { type: string; text: string }).text;
    expect(text).toContain('# Learning headspace');
    expect(text).toContain('Never put a secret on the command line: argv is recorded verbatim.');
    expect(text).toContain("Pass it in run's env");
    expect(text).toContain('- 3 policy_denied:');
    expect(text).toContain('outcome_summary, status, key_findings');
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) expect(text).toContain(`- ${tool.name}: `);
  });
});
