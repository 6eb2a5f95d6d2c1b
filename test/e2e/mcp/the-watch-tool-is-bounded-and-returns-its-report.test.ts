/**
 * Over MCP watch is bounded: forSeconds above 300 is refused by the tool's
 * schema (an invalid-params error, nothing watched), and a short watch
 * returns its report as the result package, with its violation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('the watch tool', () => {
  it('refuses more than 300 seconds and returns the report of a short watch', async () => {
    mcp = await connectStdio();
    await mcp.client.callTool({ name: 'create', arguments: { workspaceId: 'seen' } });
    const tooLong = await mcp.client.callTool({ name: 'watch', arguments: { handle: 'seen', forSeconds: 301 } }).then(
      (r) => r,
      (error: Error) => error,
    );
    expect(tooLong instanceof Error ? tooLong.message : JSON.stringify(tooLong)).toMatch(/forSeconds|300/);
    const watched = await mcp.client.callTool({ name: 'watch', arguments: { handle: 'seen', forSeconds: 1, everySeconds: 0.2, requireRunning: true } });
    const pkg = watched.structuredContent as unknown as ResultPackage;
    expect(pkg.status).toBe('failure');
    expect(pkg.key_findings.some((f) => typeof f !== 'string' && f.kind === 'violation' && f.code === 'not_running')).toBe(true);
  }, 60_000);
});
