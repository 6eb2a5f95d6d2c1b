/**
 * Over HTTP, a client whose stream drops while a run is in flight reconnects
 * with Last-Event-ID and still receives the run's result: each session keeps
 * a bounded event store, every SSE event carries an id (a priming event
 * first, with a retry hint), and the job is not cancelled by the drop
 * (#12 item 21). Before, events had no ids and the result was lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type HttpServerHandle } from '../../helpers/mcp.js';

const VERSION = '2025-11-25';
let server: HttpServerHandle;
let session = '';
beforeAll(async () => {
  server = await startHttp();
});
afterAll(() => server?.close());

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${server.token}`,
    'mcp-protocol-version': VERSION,
    ...(session ? { 'mcp-session-id': session } : {}),
    ...extra,
  };
}

/** Reads SSE events from a response until `stop` says enough; returns them. */
async function readEvents(response: Response, stop: (event: { id?: string; data: string }) => boolean): Promise<Array<{ id?: string; data: string }>> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id?: string; data: string }> = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: ?(.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
      const event = { ...(id === undefined ? {} : { id }), data };
      events.push(event);
      if (stop(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

const call = (id: number, method: string, params: unknown, init: RequestInit = {}) =>
  fetch(server.url, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }), ...init });

describe('a dropped HTTP stream', () => {
  it("resumes with Last-Event-ID and delivers the run's result", async () => {
    const init = await call(1, 'initialize', { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    session = init.headers.get('mcp-session-id')!;
    await readEvents(init, (e) => e.data.includes('"id":1'));
    expect(
      (await fetch(server.url, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status,
    ).toBe(202);
    await readEvents(await call(2, 'tools/call', { name: 'create', arguments: { workspaceId: 'w' } }), (e) => e.data.includes('"id":2'));

    const drop = new AbortController();
    const running = await call(
      3,
      'tools/call',
      { name: 'run', arguments: { workspaceId: 'w', argv: ['sleep', '3', '&&', 'echo', 'survived'] } },
      { signal: drop.signal },
    );
    const first = await readEvents(running, (e) => e.id !== undefined);
    const lastEventId = first.at(-1)?.id;
    expect(lastEventId).toBeDefined();
    drop.abort();

    await new Promise((r) => setTimeout(r, 4000));
    const resumed = await fetch(server.url, { method: 'GET', headers: headers({ accept: 'text/event-stream', 'last-event-id': lastEventId! }) });
    expect(resumed.status).toBe(200);
    const replayed = await readEvents(resumed, (e) => e.data.includes('"id":3'));
    const response = JSON.parse(replayed.at(-1)!.data) as { result: { structuredContent: { status: string; evidence: Array<{ excerpt: string }> } } };
    expect(response.result.structuredContent.status).toBe('success');
    expect(response.result.structuredContent.evidence[0]?.excerpt).toContain('survived');
  }, 30_000);
});
