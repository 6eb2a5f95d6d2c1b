/**
 * The engine's time seam. The system clock uses real timers; the virtual
 * clock (tests, the fake provider) makes `sleep 30` cost no real time while
 * still firing the engine's wall-clock timer at the right virtual moment.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; returns a canceller. */
  setTimer(ms: number, fn: () => void): () => void;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  sleep(ms, signal) {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  },
};

export interface VirtualClock extends Clock {
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void;
}

export function createVirtualClock(start = Date.UTC(2026, 0, 1)): VirtualClock {
  let current = start;
  let nextId = 0;
  const timers = new Map<number, { due: number; fn: () => void }>();
  const nextDue = () => Math.min(...[...timers.values()].map((t) => t.due));
  const clock: VirtualClock = {
    now: () => current,
    setTimer(ms, fn) {
      const id = nextId++;
      timers.set(id, { due: current + Math.max(0, ms), fn });
      return () => timers.delete(id);
    },
    advance(ms) {
      const target = current + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.due <= target).sort((a, b) => a[1].due - b[1].due)[0];
        if (!due) break;
        timers.delete(due[0]);
        current = Math.max(current, due[1].due);
        due[1].fn();
      }
      current = target;
    },
    async sleep(ms, signal) {
      // Step from timer to timer so an abort fired by a timer ends the sleep at that virtual moment.
      let remaining = ms;
      while (remaining > 0 && !signal?.aborted) {
        const step = timers.size ? Math.min(remaining, Math.max(0, nextDue() - current)) : remaining;
        clock.advance(step);
        remaining -= step;
        await Promise.resolve();
        if (step === 0 && timers.size && nextDue() <= current) continue;
      }
    },
  };
  return clock;
}
