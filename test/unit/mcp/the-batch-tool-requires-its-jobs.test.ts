/**
 * Over MCP the batch tool has no spec (a tool call passes data), so its jobs
 * are the only way to give the batch its work: the input schema marks jobs as
 * required, and a call without them is refused by the schema, before the engine.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOLS } from '../../../src/mcp/tools/index.js';

describe('the batch tool', () => {
  it('requires jobs in its input schema', () => {
    const tool = TOOLS.find((t) => t.name === 'batch')!;
    const schema = z.toJSONSchema(tool.input) as { required?: string[]; properties: Record<string, unknown> };
    expect(schema.required).toContain('jobs');
    expect(schema.properties).not.toHaveProperty('spec');
    expect(tool.input.safeParse({ strategy: 'all' }).success).toBe(false);
    expect(tool.input.safeParse({ strategy: 'all', jobs: [{ workspace: 'w', command: 'true' }] }).success).toBe(true);
  });
});
