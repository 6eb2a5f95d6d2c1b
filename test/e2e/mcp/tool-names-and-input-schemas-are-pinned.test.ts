/**
 * The MCP tool surface is public: a client's prompts and configurations name
 * tools and arguments. The names are an explicit list and the input schemas a
 * stored document, both compared with toEqual, so removing, renaming or
 * retyping a tool or an argument is a visible change in the same commit.
 * After a deliberate change: UPDATE_MCP_SCHEMAS=1 npx vitest run <this file>.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

const STORED = fileURLToPath(new URL('./tool-input-schemas.json', import.meta.url));

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

describe('the MCP tool surface', () => {
  it('lists exactly the pinned tool names, in order', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'create',
      'run',
      'stop',
      'inspect',
      'logs',
      'ls',
      'destroy',
      'doctor',
      'put',
      'declare',
      'export',
      'ls-files',
      'probe',
      'status',
      'watch',
      'plan',
      'prepare',
      'events-subscribe',
      'events-claim',
      'events-ack',
      'wait',
      'checkpoint',
      'restore',
      'diff',
      'fork',
      'seal',
      'settle',
      'receipt',
      'batch',
      'batch-wait',
    ]);
  });

  it('keeps every input schema equal to the stored one', async () => {
    const { tools } = await mcp.client.listTools();
    const actual = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
    if (process.env.UPDATE_MCP_SCHEMAS === '1') writeFileSync(STORED, `${JSON.stringify(actual, null, 2)}\n`);
    expect(actual).toEqual(JSON.parse(readFileSync(STORED, 'utf8')) as unknown);
  });
});
