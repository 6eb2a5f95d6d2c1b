/**
 * Typed engine events. Adapters subscribe (progress on a terminal, streaming
 * under --json later); the engine never prints.
 */
export type EngineEvent =
  | { type: 'workspace.created'; workspaceId: string; provider: string }
  | { type: 'workspace.destroyed'; workspaceId: string }
  | { type: 'job.started'; workspaceId: string; jobId: string }
  | { type: 'job.output'; jobId: string; bytes: number }
  | { type: 'job.finished'; workspaceId: string; jobId: string; status: string }
  | { type: 'job.stop-requested'; workspaceId: string; jobId: string };

export type EventListener = (event: EngineEvent) => void;

export interface EventBus {
  emit(event: EngineEvent): void;
  subscribe(listener: EventListener): () => void;
}

export function createEventBus(): EventBus {
  const listeners = new Set<EventListener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A faulty subscriber must not break the verb that emitted.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
