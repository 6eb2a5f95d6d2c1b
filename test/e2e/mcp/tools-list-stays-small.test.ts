/**
 * Every agent pays for `tools/list` on connect (#13): it stays small. It was
 * pinned at 25 KB for 13 tools; with the surface growing through the verb
 * table (status, watch, plan, prepare) the bound is per tool, 1.6 KB on
 * average, so each new tool must pay its own way and none can bloat the rest.
 * Tools declare the compact nine-section output schema; the whole result
 * schema, every field described, is served once as a resource, and a tool's
 * structuredContent validates against it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

describe('tools/list', () => {
  it('is at most 1.6 KB per tool on average', async () => {
    const listed = await mcp.client.listTools();
    expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThanOrEqual(1.6 * 1024 * listed.tools.length);
  });

  it('points at the whole result schema, served once as a resource', async () => {
    const read = await mcp.client.readResource({ uri: 'headspace://schema/result-package' });
    const schema = JSON.parse((read.contents[0] as { text: string }).text) as { properties: Record<string, { description?: string }> };
    expect(Object.keys(schema.properties)).toEqual([
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
    expect(schema.properties.provenance?.description).toBeTruthy();
  });

  it('returns structuredContent without null fields', async () => {
    const created = await mcp.client.callTool({ name: 'create', arguments: {} });
    expect(JSON.stringify(created.structuredContent)).not.toContain(':null');
  });
});
