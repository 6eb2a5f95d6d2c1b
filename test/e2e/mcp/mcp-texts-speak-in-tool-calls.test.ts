/**
 * Over MCP, every suggestion a model reads is a tool call it can make, never
 * a CLI command or flag it cannot pass: the learn prompt's workflow, a stop
 * preview's attention item, an unexported artifact's attention item, a busy
 * workspace's hint, a refused destroy's hint and the evidence's retrieval
 * (#12 item 22). Core writes each as an action (#11); structuredContent keeps
 * it as data and the text renders it as a tool call. The CLI renders the same
 * actions as shell commands (other tests pin them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio();
});
afterAll(() => mcp?.close());

const CLI_WORDS = /headspace (create|run|logs|inspect|stop|destroy|export|gc|ls)\b|--[a-z][a-z-]+/;

async function call(name: string, args: Record<string, unknown>): Promise<{ pkg: ResultPackage; text: string; isError: boolean }> {
  const result = await mcp.client.callTool({ name, arguments: args });
  return { pkg: result.structuredContent as unknown as ResultPackage, text: textOf(result), isError: result.isError === true };
}

describe('texts over MCP', () => {
  it('the learn prompt gives the workflow as tool calls', async () => {
    const { messages } = await mcp.client.getPrompt({ name: 'learn' });
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toContain('stop {"workspaceId": W, "apply": true}');
    expect(text).toContain('resetTimeoutOnProgress');
    const workflow = text.slice(text.indexOf('## Workflow'), text.indexOf('## Result package'));
    expect(workflow).not.toMatch(CLI_WORDS);
  });

  it('suggestions in results and refusals are tool calls', async () => {
    await call('create', { workspaceId: 'w' });
    const ran = await call('run', {
      workspaceId: 'w',
      jobId: 'job-w',
      argv: ['write', 'out.txt', 'x', '&&', 'flood', '300000'],
      declares: [{ name: 'out.txt', purpose: 'kept' }],
    });
    const unexported = ran.pkg.attention.find((a) => a.kind === 'unexported-artifact');
    expect(unexported?.action, JSON.stringify(ran.pkg.attention)).toEqual({ verb: 'export', args: { workspaceId: 'w', name: 'out.txt' }, needs: ['to'] });
    expect(ran.text).toContain('export it: `export {"workspaceId":"w","name":"out.txt","to":<to>}`');
    expect(ran.pkg.evidence[0]?.retrieval).toBe('logs {"jobId":"job-w","lines":{"from":1,"to":200}} (then the next 200 lines)');
    expect(JSON.stringify(ran.pkg)).not.toMatch(CLI_WORDS);

    const destroy = await call('destroy', { workspaceId: 'w' });
    expect(destroy.isError).toBe(true);
    expect(destroy.text).toContain('to keep them, export them first: `export {"workspaceId":"w","name":"out.txt","to":<to>}`');
    expect(destroy.text).not.toMatch(CLI_WORDS);

    const running = mcp.client.callTool({ name: 'run', arguments: { workspaceId: 'w', argv: ['block'] } });
    let preview: ResultPackage | undefined;
    for (let i = 0; i < 100; i++) {
      preview = (await call('stop', { workspaceId: 'w' })).pkg;
      if (preview.attention.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(preview?.attention).toEqual([
      { kind: 'next-step', text: 'to end it', workspace_id: 'w', action: { verb: 'stop', args: { workspaceId: 'w', apply: true } } },
    ]);
    const busy = await call('run', { workspaceId: 'w', argv: ['true'] });
    expect(busy.isError).toBe(true);
    expect(busy.text).toContain('wait for it, or end it: `stop {"workspaceId":"w","apply":true}`');
    expect(busy.text).not.toMatch(CLI_WORDS);
    await call('stop', { workspaceId: 'w', apply: true });
    await running;
  });
});
