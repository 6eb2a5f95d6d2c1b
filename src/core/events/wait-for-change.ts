/**
 * Waiting for the store to change, cheaply: a waiting claim, follow and
 * deliver read SQLite's data_version (a counter that moves when another
 * connection commits; a read of the connection's own page, no lock) every
 * 5 ms, and wake at once on this engine's own job.finished (a commit on
 * its own connection does not move the counter). Every 200 ms they look
 * anyway, so an expired lease is noticed without any commit. Every waiter
 * (claim, follow, deliver, wait, batch wait, a batch's driver) passes here,
 * so this is where it stops when its home was moved away (refuseIfMoved).
 */
import type { EngineContext } from '../context.js';

export const POLL_MS = 5;
/** For a waiter whose caller is a person or an agent, not a claim racing other claims: wait, batch wait, a batch's driver. */
export const WAITER_POLL_MS = 15;
const LOOK_ANYWAY_MS = 200;

/**
 * Resolves when the store may have changed, `untilMs` (epoch ms) passed, or `signal` aborted. `pollMs`: between reads
 * of the counter; a waiter that can take a few more ms to notice (wait, a batch's driver) reads it less often, since
 * each read is a timer's wake-up too.
 */
export async function waitForChange(ctx: EngineContext, untilMs: number, signal?: AbortSignal, pollMs = POLL_MS): Promise<void> {
  const queue = ctx.store().events;
  const version = queue.changeCounter();
  const started = Date.now();
  let wake: (() => void) | null = null;
  const woken = new Promise<void>((resolve) => (wake = resolve));
  const unsubscribe = ctx.events.subscribe((event) => {
    if (event.type === 'job.finished') wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  let fired = false;
  void woken.then(() => (fired = true));
  try {
    while (!fired && !signal?.aborted) {
      const now = Date.now();
      if (now >= untilMs || now - started >= LOOK_ANYWAY_MS) return;
      await Promise.race([woken, sleep(Math.min(pollMs, untilMs - now))]);
      ctx.store().refuseIfMoved();
      if (queue.changeCounter() !== version) return;
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener('abort', onAbort);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
