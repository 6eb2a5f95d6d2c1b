/**
 * Lets the event loop turn during long synchronous work on a tree (the host
 * side of checkpoint, diff and seal; walks that list, measure and copy): a
 * resident engine (serve, mcp) answers its other callers meanwhile. By time,
 * not by count: an entry costs microseconds and a 1 MiB read and digest
 * milliseconds, and a count of 256 of either let a checkpoint of two big
 * files hold a served `ls` for 2 s (red team, session 10). Callers working
 * side by side (a comparison's two views) share one clock, and so one turn:
 * each waiting for one of its own gave each a fresh slice, 40 ms and more in
 * a row.
 */
const TURN_MS = 20;

export class TurnClock {
  private last = performance.now();
  private turn: Promise<void> | undefined;

  /** Lets the event loop turn when TURN_MS have passed since it last did (undefined: go on at once). */
  step(): Promise<void> | undefined {
    if (this.turn !== undefined || performance.now() - this.last < TURN_MS) return this.turn;
    this.turn = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.last = performance.now();
        this.turn = undefined;
        resolve();
      }),
    );
    return this.turn;
  }
}
