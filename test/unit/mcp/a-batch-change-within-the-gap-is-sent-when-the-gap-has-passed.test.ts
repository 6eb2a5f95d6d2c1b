/**
 * batch-wait's progress tells each start and end of a batch's jobs at once,
 * at most one message a second. A change that came sooner was dropped, not
 * delayed: the first job ending and the second starting a moment later were
 * never told (the next heartbeat, 5 s on, found both done), and an MCP e2e
 * test failed on a loaded machine for it. Now such a change goes out once the
 * gap has passed, as the batch is by then, and only once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEventBus, type EventBus } from '../../../src/core/events.js';
import { reportProgress, type ProgressUpdate } from '../../../src/mcp/progress.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const progress = (done: number, running: number, queued: number) => ({
  type: 'batch.progress' as const,
  groupId: 'b1',
  done,
  running,
  queued,
  bytes: 10 * done,
});

/** A progress reporter over a fresh event bus, with the updates it sent. */
function reporting(): { events: EventBus; sent: ProgressUpdate[]; stop: () => void } {
  const events = createEventBus();
  const sent: ProgressUpdate[] = [];
  const stop = reportProgress(
    events,
    async (update) => void sent.push(update),
    () => undefined,
  );
  return { events, sent, stop };
}

describe("batch-wait's progress", () => {
  it('sends a change that comes within a second of the last message once that second has passed', async () => {
    const { events, sent, stop } = reporting();
    vi.advanceTimersByTime(1_500);
    events.emit(progress(0, 1, 1)); // 1.5 s after the start: sent at once
    vi.advanceTimersByTime(1_500);
    events.emit(progress(1, 0, 1)); // the first job ends: sent at once
    vi.advanceTimersByTime(200);
    events.emit(progress(1, 1, 0)); // the second starts 0.2 s later: within the gap
    expect(sent.map((u) => u.message)).toEqual([
      expect.stringContaining('0 done, 1 running, 1 queued'),
      expect.stringContaining('1 done, 0 running, 1 queued'),
    ]);
    vi.advanceTimersByTime(800);
    expect(sent).toHaveLength(3);
    expect(sent[2]!.message).toContain('1 done, 1 running, 0 queued');
    // Sent once: nothing more until the heartbeat, 5 s after the start.
    vi.advanceTimersByTime(900);
    expect(sent).toHaveLength(3);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(4);
    stop();
  });

  it('sends nothing after it is stopped, a delayed change included', () => {
    const { events, sent, stop } = reporting();
    events.emit(progress(0, 1, 1)); // at the start: within the first second, so delayed
    stop();
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual([]);
  });
});
