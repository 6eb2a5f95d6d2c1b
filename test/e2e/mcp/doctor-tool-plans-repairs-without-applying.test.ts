/**
 * The doctor tool can show a model the repair plan (`repair: true`), but it
 * stays read-only: it is a dry run and changes nothing; applying repairs is
 * left to a person or the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

describe('the doctor tool', () => {
  it('returns the repair plan as a dry run', async () => {
    const result = (await mcp.client.callTool({ name: 'doctor', arguments: { provider: 'fake', repair: true } })) as {
      isError?: boolean;
      structuredContent?: { status: string; outcome_summary: string };
    };
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent?.status).toBe('success');
    expect(result.structuredContent?.outcome_summary).toMatch(
      /doctor's repair planned \d+ safe repair\(s\) and \d+ judgement call\(s\); this dry run changed nothing/,
    );
  });

  it('offers no way to apply repairs', async () => {
    const { tools } = await mcp.client.listTools();
    const doctor = tools.find((t) => t.name === 'doctor')!;
    expect(Object.keys((doctor.inputSchema as { properties: Record<string, unknown> }).properties).sort()).toEqual(['file', 'provider', 'repair']);
    expect(doctor.annotations?.readOnlyHint).toBe(true);
  });
});
