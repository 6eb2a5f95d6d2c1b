/**
 * Was anything in the workspace container killed for memory since `sinceMs`?
 * Read from the engine's own `oom` events for the container (the kernel's
 * OOM notification as containerd relays it): an exec's OOM kill never sets
 * State.OOMKilled, which the engine only sets when the container itself
 * exits, and exit status 137 is also what any SIGKILL gives, so neither is
 * used as the answer. State.OOMKilled is still honoured when the container
 * itself died.
 */
import type { Engine } from './engine-client.js';

async function oomEvents(engine: Engine, containerId: string, sinceMs: number): Promise<number> {
  // `until` makes the engine answer from its event log and close the stream.
  const since = (Math.floor(sinceMs) / 1000 - 1).toFixed(3);
  const until = (Date.now() / 1000 + 0.001).toFixed(3);
  const stream = (await engine.getEvents({
    since: Number(since),
    until: Number(until),
    filters: { container: [containerId], event: ['oom'] },
  } as never)) as unknown as AsyncIterable<Buffer>;
  let text = '';
  for await (const chunk of stream) text += chunk.toString('utf8');
  let count = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as { timeNano?: number; time?: number };
    const atMs = event.timeNano !== undefined ? event.timeNano / 1e6 : (event.time ?? 0) * 1000;
    if (atMs >= sinceMs - 5) count += 1;
  }
  return count;
}

export async function oomDuring(engine: Engine, containerId: string, sinceMs: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if ((await oomEvents(engine, containerId, sinceMs)) > 0) return true;
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (waitMs === 0) return false;
  const state = await engine
    .getContainer(containerId)
    .inspect()
    .then((info) => info.State)
    .catch(() => undefined);
  return state !== undefined && state.Running !== true && state.OOMKilled === true;
}
