/**
 * Typed engine events: verbs emit, adapters subscribe; the engine never
 * prints. Today one subscriber listens, mcp/progress.ts (progress
 * notifications so a client does not cancel a long call); the events issue
 * (#15) adds a durable subscriber that records them. Kept for both rather
 * than removed as unused.
 */
export type EngineEvent =
  | { type: 'workspace.created'; workspaceId: string; provider: string }
  | { type: 'workspace.destroyed'; workspaceId: string }
  /** Its provider lost it after it was ready (a swarm node went down, #22). */
  | { type: 'workspace.failed'; workspaceId: string; reason: string }
  | { type: 'job.started'; workspaceId: string; jobId: string }
  | { type: 'job.output'; jobId: string; bytes: number }
  /** How much output a job another process runs has kept so far, as a reader of its log sees it (wait, #15 review): the total, not an increment. */
  | { type: 'job.output-size'; jobId: string; bytes: number }
  /** Where a batch stands (batch-wait, #16 review): its jobs by state and the output they kept so far, as totals. */
  | { type: 'batch.progress'; groupId: string; done: number; running: number; queued: number; bytes: number }
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
