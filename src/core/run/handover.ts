/**
 * What a detached run's caller hands its supervisor (over the shared
 * supervisor's socket, or the per-job fallback's pipe): the job,
 * its run intent, and the job's environment VALUES, which travel only here
 * (never in the store, argv or a file). One JSON document; anything else,
 * including an empty pipe (the caller died before handing over), reads as
 * no handover.
 */
import type { PlannedCheck } from '../verification/verification.js';
import type { JobSecret } from '../network/egress-secrets.js';

export interface Handover {
  jobId: string;
  intentId: number;
  env: Record<string, string>;
  /** The run's verification contract (#16): checked by the caller already, carried as planned. */
  checks: PlannedCheck[];
  /**
   * The caller's HEADSPACE_TEST_RESOLVER_MAP (#18 F4), for this job only: the supervisor never takes it from its own
   * environment, which a shared supervisor inherits from whichever caller started it and keeps for later runs.
   */
  testResolverMap?: string;
  /** The caller's HEADSPACE_TEST_UPSTREAM_CA (#18 item 3), carried like the resolver map. */
  testUpstreamCa?: string;
  /** Secrets at egress (#18 item 3): values and placeholders, carried here only, like env values. */
  secrets?: JobSecret[];
}

/** A handover larger than this is not one a caller wrote: refused unread past it. */
export const MAX_HANDOVER_BYTES = 8 * 1024 * 1024;

export function encodeHandover(handover: Handover): string {
  return JSON.stringify({ v: 1, ...handover });
}

/** The handover for `jobId`, or null when the text is not a complete one for it. */
export function decodeHandover(text: string, jobId: string): Handover | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const h = parsed as Record<string, unknown>;
  if (h.v !== 1 || h.jobId !== jobId || typeof h.intentId !== 'number' || typeof h.env !== 'object' || h.env === null) return null;
  const env = h.env as Record<string, unknown>;
  if (Object.values(env).some((value) => typeof value !== 'string')) return null;
  const checks = h.checks === undefined ? [] : h.checks;
  if (!Array.isArray(checks) || !checks.every(isPlannedCheck)) return null;
  if (h.testResolverMap !== undefined && typeof h.testResolverMap !== 'string') return null;
  if (h.testUpstreamCa !== undefined && typeof h.testUpstreamCa !== 'string') return null;
  const secrets = h.secrets === undefined ? [] : h.secrets;
  if (!Array.isArray(secrets) || !secrets.every(isJobSecret)) return null;
  return {
    jobId,
    intentId: h.intentId,
    env: env as Record<string, string>,
    checks,
    ...(h.testResolverMap === undefined ? {} : { testResolverMap: h.testResolverMap }),
    ...(h.testUpstreamCa === undefined ? {} : { testUpstreamCa: h.testUpstreamCa }),
    ...(secrets.length === 0 ? {} : { secrets }),
  };
}

/** The shapes planChecks makes; anything else is not a handover a caller wrote. */
function isPlannedCheck(value: unknown): value is PlannedCheck {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  if (c.kind === 'verify') return Array.isArray(c.argv) && c.argv.length > 0 && c.argv.every((a) => typeof a === 'string');
  if (c.kind === 'expect-file') return typeof c.path === 'string' && (c.sha256 === null || typeof c.sha256 === 'string');
  if (c.kind === 'expect-output') return typeof c.pattern === 'string';
  return false;
}

function isJobSecret(value: unknown): value is JobSecret {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return ['name', 'value', 'host', 'placeholder'].every((k) => typeof s[k] === 'string') && typeof s.body === 'boolean';
}
