/**
 * What tools/list and initialize tell a client is true and easy to read:
 * every number argument states its real range (never zod's ±2^53 default),
 * line counts and limits start at 1, no schema carries an empty
 * `additionalProperties` or a nullable type array, and listChanged is
 * announced only where a list can change, which on this server is nowhere
 * (#12 item 22).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

type Schema = Record<string, unknown>;

/** Every sub-schema, with its path. */
function* walk(node: unknown, path: string): Generator<[string, Schema]> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* walk(item, `${path}[${i}]`);
    return;
  }
  yield [path, node as Schema];
  for (const [key, value] of Object.entries(node)) yield* walk(value, `${path}.${key}`);
}

describe('tool schemas', () => {
  it('state a real range for every number, and at least 1 for counts', async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      for (const [path, schema] of walk(tool.inputSchema, tool.name)) {
        if (schema.type !== 'integer' && schema.type !== 'number') continue;
        for (const bound of ['minimum', 'maximum'] as const) {
          if (typeof schema[bound] === 'number') expect(Math.abs(schema[bound]), `${path}.${bound}`).toBeLessThan(2 ** 53 - 1);
        }
      }
    }
    const logs = tools.find((t) => t.name === 'logs')!.inputSchema.properties as Record<string, Schema>;
    for (const name of ['head', 'tail', 'maxLines']) expect(logs[name], name).toMatchObject({ type: 'integer', minimum: 1, maximum: 1_000_000 });
    const create = tools.find((t) => t.name === 'create')!.inputSchema.properties as Record<string, Schema>;
    expect((create.budget!.properties as Record<string, Schema>).pidsLimit).toMatchObject({ minimum: 1, maximum: 32768 });
  });

  it('use no empty additionalProperties and no nullable type arrays', async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      for (const [path, schema] of [...walk(tool.inputSchema, `${tool.name}.input`), ...walk(tool.outputSchema, `${tool.name}.output`)]) {
        const extra = schema.additionalProperties;
        if (extra !== undefined && typeof extra === 'object' && extra !== null) expect(Object.keys(extra), `${path}.additionalProperties`).not.toHaveLength(0);
        expect(Array.isArray(schema.type), `${path}.type`).toBe(false);
      }
    }
    const read = await mcp.client.readResource({ uri: 'headspace://schema/result-package' });
    expect((read.contents[0] as { text: string }).text).not.toMatch(/"additionalProperties": \{\}/);
  });
});

describe('server capabilities', () => {
  it('announce no listChanged: the tool, prompt and resource lists never change', () => {
    const caps = mcp.client.getServerCapabilities()!;
    expect(caps.tools?.listChanged).toBe(false);
    expect(caps.prompts?.listChanged).toBe(false);
    expect(caps.resources?.listChanged).toBe(false);
  });
});
