/**
 * Every tool a client lists is usable by a model without reading our code:
 * it has a description, an input schema whose every field is described, and
 * the result package as its output schema (nine sections, in order).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

type JsonSchema = {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
};

/** Paths of properties (at any depth) that carry no description. */
function undescribed(schema: JsonSchema, path: string): string[] {
  const missing: string[] = [];
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const at = `${path}.${name}`;
    if (!prop.description) missing.push(at);
    missing.push(...undescribed(prop, at));
    if (prop.items) missing.push(...undescribed(prop.items, `${at}[]`));
  }
  return missing;
}

describe('the listed tools', () => {
  it('each carry a description, fully described inputs and the result package as output', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(8);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.description, tool.name).toContain('result package');
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.inputSchema.additionalProperties, `${tool.name} refuses unknown arguments`).toBe(false);
      expect(undescribed(tool.inputSchema as JsonSchema, tool.name), 'fields without .describe()').toEqual([]);
      expect(Object.keys(tool.outputSchema!.properties ?? {}), tool.name).toEqual([
        'outcome_summary',
        'status',
        'key_findings',
        'evidence',
        'artifacts',
        'warnings',
        'resource_usage',
        'provenance',
        'attention',
      ]);
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }
  });

  it('warn a model that run records argv verbatim and never records env values', async () => {
    const { tools } = await mcp.client.listTools();
    const run = tools.find((t) => t.name === 'run')!;
    expect(run.description).toMatch(/argv is recorded verbatim/);
    expect(run.description).toMatch(/env values are given to the job but never recorded/);
    const env = (run.inputSchema.properties as Record<string, JsonSchema>).env!;
    expect(env.description).toMatch(/values never/);
  });
});
