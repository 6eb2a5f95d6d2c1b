/** Drives a ResponseRedactor the way the proxy does, for the reflection tests. */
import { ResponseRedactor } from '../../src/core/network/egress-response-redact.js';
import type { JobSecret } from '../../src/core/network/egress-secrets.js';

/**
 * Runs `bytes` (latin1) through a redactor for `secrets` in pieces cut at `cuts` (taken modulo the length, as a
 * property draws them); `methods` are the requests' methods in order. Returns what the job got and, when the
 * redactor refused the stream, why (what the job got stops there, as the proxy's relay does); and how many
 * ends it masked as a value's possible start (probes: the proxy cuts the job's network at the first).
 */
export function redactInPieces(secrets: readonly JobSecret[], bytes: string, cuts: number[], methods: string[] = []) {
  let probes = 0;
  const redactor = new ResponseRedactor(secrets, { nextMethod: () => methods.shift(), redacted: () => undefined, probed: () => void probes++ });
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    const r = redactor.push(Buffer.from(bytes.slice(from, to), 'latin1'));
    out.push(r.out);
    if (r.refused !== undefined) return { text: Buffer.concat(out).toString('latin1'), refused: r.refused, probes };
    from = to;
  }
  out.push(redactor.end());
  return { text: Buffer.concat(out).toString('latin1'), refused: undefined as string | undefined, probes };
}
