/**
 * Every egress decision of one job (#18 item 2): what the proxy allowed or
 * denied, to which host and port, and how many bytes went each way. Never a
 * path, query string, header or body: only what the policy decided on.
 *
 * Bounded: a job that opens connections in a loop must not grow the
 * engine's memory or the store without end. The first MAX_KEPT decisions are
 * kept one by one; past that only the counts grow (and the summary says so).
 */
import { hostEvidence, type DenyReason } from './allow-list.js';

export type EgressVia = 'http-connect' | 'http' | 'socks5' | 'simulated';

export interface EgressDecision {
  /** Milliseconds since the epoch, when the decision was taken. */
  at: number;
  verdict: 'allowed' | 'denied';
  host: string;
  port: number;
  via: EgressVia;
  /** 'job ended first': the job's run ended while the proxy was still looking the name up or connecting. */
  reason?:
    | DenyReason
    | 'too many connections'
    | 'upstream unreachable'
    | 'job ended first'
    // Secrets at egress (#18 item 3): the secret's NAME, never its value or placeholder.
    | `placeholder of ${string}`
    | `upstream TLS refused (${string})`
    // Reflection: a response that could not be scanned for a value (compressed, malformed) on a secret-bearing tunnel.
    | `response refused (${string})`
    // A request the proxy would not send: more placeholders than one request may have replaced.
    | `request refused (${string})`
    // A response's end masked as a value's possible start: the job's network was cut there (egress-response-redact.ts).
    | typeof NETWORK_CUT_REASON;
  /** Job → upstream bytes (allowed connections only). */
  bytesUp: number;
  /** Upstream → job bytes. */
  bytesDown: number;
}

/** Why the job's network was cut: the one probe of the redactor it gets (egress-response-redact.ts). */
export const NETWORK_CUT_REASON = "network cut: a response ended with what may be a secret value's first bytes";

export const MAX_KEPT = 1000;

export class EgressLedger {
  readonly decisions: EgressDecision[] = [];
  allowed = 0;
  denied = 0;
  /** Decisions past MAX_KEPT: counted, not kept. */
  dropped = 0;
  private cutKept = false;
  /** Secrets at egress (#18 item 3): requests (or bodies) each secret's value was put into, by `NAME → host`. Never a value. */
  readonly substitutions = new Map<string, number>();

  /** Reflection: responses (or streams) each secret's value came back in and was redacted from, by `NAME ← host`. */
  readonly redactions = new Map<string, number>();

  substituted(name: string, host: string): void {
    count(this.substitutions, `${name} → ${host}`);
  }

  redacted(name: string, host: string): void {
    count(this.redactions, `${name} ← ${host}`);
  }

  record(decision: EgressDecision): void {
    // Last line of defence (#18 F1): whatever a caller passes, no control or non-ASCII byte of a job's host reaches a record.
    if (!/^[\x21-\x7e]{1,1100}$/.test(decision.host)) decision = { ...decision, host: hostEvidence(decision.host) };
    if (decision.verdict === 'allowed') this.allowed += 1;
    else this.denied += 1;
    // The cut is always kept, past MAX_KEPT too: a later run with secrets in the workspace is refused on it (run.ts),
    // and a job must not push it out of the record with a thousand connections first.
    if (this.decisions.length < MAX_KEPT || (decision.reason === NETWORK_CUT_REASON && !this.cutKept)) this.decisions.push(decision);
    else this.dropped += 1;
    if (decision.reason === NETWORK_CUT_REASON) this.cutKept = true;
  }
}

function count(map: Map<string, number>, key: string): void {
  if (map.has(key) || map.size < 64) map.set(key, (map.get(key) ?? 0) + 1);
}

/** A host as a summary may print it: bounded, and only the characters a host name has. */
/** What the proxy records as the host of a connection it refused before reading one: shown as they are. */
const OWN_LABELS = new Set(['(any)', '(malformed request)']);

function shown(host: string): string {
  if (OWN_LABELS.has(host)) return host;
  const clean = host.replace(/[^A-Za-z0-9.:\-_[\]*\\]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}

/** `network: 3 allowed to 1 host, 2 denied: evil.test (not in allow-list)` */
export function summariseEgress(
  decisions: readonly EgressDecision[],
  counts: { allowed: number; denied: number; dropped: number; substitutions?: ReadonlyMap<string, number>; redactions?: ReadonlyMap<string, number> },
): string {
  const hosts = new Set(decisions.filter((d) => d.verdict === 'allowed').map((d) => d.host));
  const up = decisions.reduce((s, d) => s + d.bytesUp, 0);
  const down = decisions.reduce((s, d) => s + d.bytesDown, 0);
  const parts = [`${counts.allowed} allowed to ${hosts.size} host${hosts.size === 1 ? '' : 's'}`];
  if (counts.allowed > 0) parts[0] += ` (${up} bytes sent, ${down} received)`;
  const denials = new Map<string, number>();
  for (const d of decisions) {
    if (d.verdict !== 'denied') continue;
    // Web ports go unsaid, as in a URL; any other port is part of what was denied.
    const key = `${shown(d.host)}${d.port === 0 || d.port === 80 || d.port === 443 ? '' : `:${d.port}`} (${d.reason ?? 'denied'})`;
    denials.set(key, (denials.get(key) ?? 0) + 1);
  }
  if (counts.denied > 0) {
    const named = [...denials.entries()].slice(0, 5).map(([what, n]) => (n > 1 ? `${what} ×${n}` : what));
    const more = denials.size > 5 ? `, and ${denials.size - 5} more` : '';
    parts.push(`${counts.denied} denied: ${named.join(', ')}${more}`);
  } else parts.push('0 denied');
  const dropped = counts.dropped > 0 ? ` (only the first ${decisions.length} decisions are itemised)` : '';
  const secrets = [...(counts.substitutions ?? new Map<string, number>()).entries()].map(([what, n]) => `${what} ×${n}`);
  const redacted = [...(counts.redactions ?? new Map<string, number>()).entries()].map(([what, n]) => `${what} ×${n}`);
  return `network: ${parts.join(', ')}${dropped}${secrets.length > 0 ? `; secrets substituted: ${secrets.join(', ')}` : ''}${redacted.length > 0 ? `; secrets redacted from responses: ${redacted.join(', ')}` : ''}`;
}
