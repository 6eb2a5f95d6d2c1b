/**
 * Asks `ask` of every item, at most `limit` at a time, and returns each answer or failure in the items' order.
 *
 * Why: doctor asks every provider for its readiness and every recorded workspace's provider about it, and each
 * question to an engine is bounded at 10 s (docker/probe.ts PROBE_TIMEOUT_MS). Asked one after another, a diagnosis
 * against engines that accept and never answer took 10 s per question, 40 s and more for a home with a swarm
 * workspace (#20). Asked together, it takes about one bound. The order of the answers is the items' own, so what is
 * reported from them reads the same whichever answered first. The dashboard's storage column measures its
 * workspaces through it too (reads/workspace-facts.ts).
 */
export async function settleEach<T, R>(items: readonly T[], limit: number, ask: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const settled: PromiseSettledResult<R>[] = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      try {
        settled[at] = { status: 'fulfilled', value: await ask(items[at] as T) };
      } catch (reason) {
        settled[at] = { status: 'rejected', reason };
      }
    }
  };
  // At least one worker, whatever the limit (0 or NaN would leave every answer a hole).
  const workers = Math.max(1, Math.min(Number.isFinite(limit) ? Math.floor(limit) : 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return settled;
}
