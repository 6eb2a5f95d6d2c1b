/**
 * structuredContent is bounded like the markdown text (#12 item 20: one logs
 * call returned 10.3 MB of it). Past the structured bound (64 KiB by default)
 * the excerpt is re-selected smaller and ends with the truncation marker,
 * whose retrieval is a logs tool call (never a CLI command); the package says
 * it was shrunk (a warning, and _meta), stays valid JSON and still matches the
 * result schema. The markdown's markers do not send a model to `--json`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultPackageSchema } from '../../../src/mcp/result-schema.js';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
  await mcp.client.callTool({ name: 'create', arguments: { workspaceId: 'w' } });
  await mcp.client.callTool({ name: 'run', arguments: { workspaceId: 'w', jobId: 'job-flood', argv: ['flood', '3000000'] } });
});
afterAll(() => mcp?.close());

describe('a logs call selecting megabytes of lines', () => {
  it('returns structuredContent within 64 KiB, marked, with a tool call to page on', async () => {
    const result = await mcp.client.callTool({ name: 'logs', arguments: { jobId: 'job-flood', tail: 100000, maxLines: 100000 } });
    expect(result.isError).toBeFalsy();
    const json = JSON.stringify(result.structuredContent);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(64 * 1024);
    const pkg = JSON.parse(json) as ResultPackage;
    expect(ResultPackageSchema.safeParse(pkg).success).toBe(true);
    expect(pkg.status).toBe('success');
    expect(pkg.evidence[0]?.truncated).toBe(true);
    expect(pkg.evidence[0]?.excerpt).toMatch(
      /…\[truncated: \d+ of \d+ bytes shown -- full text: `logs \{"jobId":"job-flood","lines":\{"from":1,"to":200\}\} \(then the next 200 lines\)`\]$/,
    );
    expect(pkg.warnings.some((w) => w.startsWith('structuredContent was shrunk to 65536 bytes'))).toBe(true);
    expect(result._meta?.['headspace/structured-truncated']).toMatchObject({ original_bytes: expect.any(Number) as number });
    expect(json).not.toMatch(/headspace inspect|--logs|--json/);

    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
    expect(text).not.toMatch(/--json|headspace inspect/);
  });

  it('leaves a result that fits whole and unflagged', async () => {
    const result = await mcp.client.callTool({ name: 'logs', arguments: { jobId: 'job-flood', head: 3 } });
    const pkg = result.structuredContent as unknown as ResultPackage;
    expect(pkg.evidence[0]?.excerpt.split('\n')).toHaveLength(3);
    expect(pkg.warnings.some((w) => w.startsWith('structuredContent was shrunk'))).toBe(false);
    expect(result._meta?.['headspace/structured-truncated']).toBeUndefined();
  });
});
