// Small statistics helpers shared by the benchmarks: medians and p90 of
// interleaved samples, and a markdown table.

export function quantile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[at];
}

export function summarize(samples) {
  return { n: samples.length, median: quantile(samples, 0.5), p90: quantile(samples, 0.9) };
}

/** Runs each contender in turn (A B C A B C …) after warm-ups, so drift hits all alike. */
/**
 * `gapMs`: an idle pause, untimed, after every call. Calls then come spaced, as an agent's do, and work a
 * contender leaves for after its answer (headspace spawns a workspace's next standby launcher 10 ms after a
 * spaced job ends) happens in that pause instead of inside whichever contender runs next.
 */
export async function interleave(contenders, { rounds, warmup = 2, gapMs = 0 }) {
  const samples = Object.fromEntries(contenders.map((c) => [c.name, []]));
  const gap = () => (gapMs > 0 ? new Promise((resolve) => setTimeout(resolve, gapMs)) : undefined);
  for (let i = 0; i < warmup; i++)
    for (const c of contenders) {
      await c.run();
      await gap();
    }
  for (let i = 0; i < rounds; i++) {
    for (const c of contenders) {
      const t0 = process.hrtime.bigint();
      await c.run();
      samples[c.name].push(Number(process.hrtime.bigint() - t0) / 1e6);
      await gap();
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
}

export function table(rows, columns) {
  const head = `| ${columns.join(' | ')} |`;
  const rule = `| ${columns.map(() => '---').join(' | ')} |`;
  return [head, rule, ...rows.map((r) => `| ${columns.map((c) => r[c] ?? '').join(' | ')} |`)].join('\n');
}

/** The pause benchmarks of single calls leave after each call (see interleave). */
export const SPACED_CALLS_GAP_MS = 40;

export const ms = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
