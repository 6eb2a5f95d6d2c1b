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
export async function interleave(contenders, { rounds, warmup = 2 }) {
  const samples = Object.fromEntries(contenders.map((c) => [c.name, []]));
  for (let i = 0; i < warmup; i++) for (const c of contenders) await c.run();
  for (let i = 0; i < rounds; i++) {
    for (const c of contenders) {
      const t0 = process.hrtime.bigint();
      await c.run();
      samples[c.name].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
}

export function table(rows, columns) {
  const head = `| ${columns.join(' | ')} |`;
  const rule = `| ${columns.map(() => '---').join(' | ')} |`;
  return [head, rule, ...rows.map((r) => `| ${columns.map((c) => r[c] ?? '').join(' | ')} |`)].join('\n');
}

export const ms = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
