/**
 * The per-session event store keeps at most maxEvents events and maxBytes of
 * them, dropping the oldest first; a resume after a kept event replays what
 * followed on that stream only; a resume after an evicted event replays
 * nothing (#12 item 21).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createEventStore } from '../../../src/mcp/event-store.js';

const note = (n: number, pad = 0): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n, pad: 'x'.repeat(pad) } });

async function replay(store: ReturnType<typeof createEventStore>, after: string): Promise<{ stream: string; ns: number[] }> {
  const ns: number[] = [];
  const stream = await store.replayEventsAfter(after, { send: async (_id, message) => void ns.push((message as { params: { n: number } }).params.n) });
  return { stream, ns };
}

describe('the event store', () => {
  it('replays what followed on the same stream', async () => {
    const store = createEventStore();
    const first = await store.storeEvent('a', note(1));
    await store.storeEvent('b', note(2));
    await store.storeEvent('a', note(3));
    expect(await replay(store, first)).toEqual({ stream: 'a', ns: [3] });
    expect(await store.getStreamIdForEventId!(first)).toBe('a');
  });

  it('keeps at most maxEvents, oldest dropped first', async () => {
    const store = createEventStore({ maxEvents: 3 });
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('a', note(n)));
    expect(store.stats().events).toBe(3);
    expect(await replay(store, ids[0]!)).toEqual({ stream: '', ns: [] });
    expect(await replay(store, ids[2]!)).toEqual({ stream: 'a', ns: [4, 5] });
  });

  it('keeps at most maxBytes, but always the newest event', async () => {
    const store = createEventStore({ maxBytes: 1000 });
    for (let n = 1; n <= 10; n++) await store.storeEvent('a', note(n, 300));
    expect(store.stats().bytes).toBeLessThanOrEqual(1000);
    await store.storeEvent('a', note(11, 5000));
    expect(store.stats().events).toBe(1);
  });
});
