/**
 * plan, prepare and doctor's manifest check over MCP (#17) come from the verb table like every tool;
 * the manifest's path goes through the host-root guard, so a manifest
 * outside the server's roots is refused (policy_denied) before it is read,
 * and one inside is prepared — its inputs cannot leave its directory ('..'
 * and links are refused by the manifest reader), so they stay inside too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

const base = mkdtempSync(join(tmpdir(), 'hs-mcp-manifest-'));
const inside = join(base, 'inside');
const outside = join(base, 'outside');
const manifest = 'schema: headspace.workspace/v1\nid: from-mcp\nprovider: fake\ninputs:\n  - path: data.txt\nsetup:\n  - argv: [cat, data.txt]\n';
let mcp: McpHandle;

beforeAll(async () => {
  for (const dir of [inside, outside]) {
    mkdirSync(dir);
    writeFileSync(join(dir, 'headspace.yml'), manifest);
    writeFileSync(join(dir, 'data.txt'), 'hello from the manifest\n');
  }
  mcp = await connectStdio({ roots: [inside] });
});
afterAll(async () => {
  await mcp?.close();
  rmSync(base, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string; structured: unknown }> {
  const result = await mcp.client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: textOf(result), structured: result.structuredContent };
}

describe('plan and prepare over MCP', () => {
  it('refuse a manifest outside the roots with policy_denied', async () => {
    for (const tool of ['plan', 'prepare', 'doctor']) {
      const refused = await call(tool, { file: join(outside, 'headspace.yml') });
      expect(refused.isError, refused.text).toBe(true);
      expect(refused.text).toContain('policy_denied');
    }
  });

  it('plan, then prepare, a manifest inside the roots; a second prepare does nothing', async () => {
    const file = join(inside, 'headspace.yml');
    const plan = await call('plan', { file });
    expect(plan.isError, plan.text).toBe(false);
    expect(plan.text).toContain('ready: true');
    const doctor = await call('doctor', { file, provider: 'fake' });
    expect(doctor.text).toContain(`manifest ${file}: ready: true`);
    const prepared = await call('prepare', { file });
    expect(prepared.isError, prepared.text).toBe(false);
    expect(prepared.text).toContain('workspace from-mcp is prepared');
    const again = await call('prepare', { file });
    expect(again.text).toContain('nothing was done');
    const status = await call('status', { workspaceId: 'from-mcp' });
    expect(status.text).toContain('hello from the manifest');
  });
});
