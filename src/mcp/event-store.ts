/**
 * A bounded, in-memory EventStore (the SDK's interface for resumable
 * Streamable HTTP), one per session (#12 item 21). With it every SSE event
 * carries an id, so a client whose stream dropped reconnects with
 * `Last-Event-ID` and receives what it missed — above all a long run's
 * result, which without it was lost with the stream. The SDK's own
 * InMemoryEventStore is an example that grows without bound; this one keeps
 * at most `maxEvents` events and `maxBytes` of them, dropping the oldest
 * first, and is freed with its session.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_MAX_EVENTS = 1000;
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export interface BoundedEventStore extends EventStore {
  /** Events held now, and their bytes (for tests and for the bound). */
  stats(): { events: number; bytes: number };
}

export function createEventStore(options: { maxEvents?: number; maxBytes?: number } = {}): BoundedEventStore {
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_EVENT_BYTES;
  // A Map iterates in insertion order: oldest first, which is both replay order and eviction order.
  const events = new Map<string, Stored>();
  let next = 0;
  let bytes = 0;

  return {
    async storeEvent(streamId, message) {
      const id = String(++next);
      const size = Buffer.byteLength(JSON.stringify(message));
      events.set(id, { streamId, message, bytes: size });
      bytes += size;
      for (const [oldest, stored] of events) {
        if (events.size <= maxEvents && bytes <= maxBytes) break;
        if (oldest === id) break; // the newest is always kept, even alone over the byte bound
        events.delete(oldest);
        bytes -= stored.bytes;
      }
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      // Unknown or already evicted: nothing can be replayed; the SDK then answers the resume with an error.
      if (!last) return '';
      let after = false;
      for (const [id, stored] of [...events]) {
        if (id === lastEventId) after = true;
        else if (after && stored.streamId === last.streamId) await send(id, stored.message);
      }
      return last.streamId;
    },
    stats: () => ({ events: events.size, bytes }),
  };
}
