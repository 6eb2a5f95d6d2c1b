import { canonicalDigest } from '../canonical-json.js';
import type { EngineContext } from '../context.js';
import { effectivePolicy } from '../policy/effective-policy.js';
import { measuredLimitWarning } from '../policy/label-limit.js';
import type { Policy } from '../policy/policy.js';
import type { ProviderCapabilities } from '../provider.js';
import type { JobRecord, WorkspaceRecord } from '../store/sqlite-store.js';
import { emptyUsage } from './build-result.js';
import { RESULT_SCHEMA_VERSION, type LimitSummary, type Provenance, type ResourceUsage } from './result-package.js';

export function isoTime(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/**
 * The policy summary for a result, labelled from the provider's capabilities.
 * Without them it is empty: guessing a label would be dishonest either way.
 */
export function policySummary(policy: Policy, caps: ProviderCapabilities | null): LimitSummary[] {
  if (!caps) return [];
  // The same labels create decided on (one rule, in effective-policy.ts).
  return effectivePolicy(policy, caps).limits.map(({ name, value, label, by }) => ({ name, value, label, by }));
}

/**
 * sha256 of the policy as canonical JSON (keys sorted at every level): two
 * results with the same digest ran under the same policy, which lets the
 * markdown name the policy in one line instead of repeating every limit.
 */
export function policyDigest(policy: Policy): string {
  let digest = policyDigests.get(policy);
  if (digest === undefined) {
    digest = canonicalDigest(policy);
    policyDigests.set(policy, digest);
  }
  return digest;
}

/**
 * A run digests its workspace's policy for the provenance and again for the
 * receipt, from the same record (#20). Keyed by the object: a policy read
 * again from the store is a new object and is digested afresh, so an edited
 * policy is never served a stale digest unless the same object was mutated
 * in place, which no code path does (records are rebuilt, never patched).
 */
const policyDigests = new WeakMap<Policy, string>();

export function provenanceFor(
  ctx: EngineContext,
  verb: string,
  parts: { workspace?: WorkspaceRecord | undefined; job?: JobRecord | undefined; caps?: ProviderCapabilities | null; startedAt?: number; finishedAt?: number },
): Provenance {
  const ws = parts.workspace;
  const job = parts.job;
  return {
    result_schema_version: RESULT_SCHEMA_VERSION,
    headspace_version: ctx.version,
    verb,
    workspace_id: ws?.id ?? job?.workspaceId ?? null,
    job_id: job?.id ?? null,
    provider: ws?.provider ?? null,
    profile: ws?.profile ?? null,
    environment_digest: ws?.environmentDigest ?? null,
    // On docker the environment is the image: its digest is the image's, named as such for a reader who pins images.
    ...(ws?.provider === 'docker' && ws.environmentDigest ? { image_digest: ws.environmentDigest } : {}),
    command: job?.argv ?? null,
    ...(job?.cwd ? { cwd: `/workspace/${job.cwd}` } : {}),
    started_at: isoTime(job?.startedAt ?? parts.startedAt),
    finished_at: isoTime(job?.finishedAt ?? parts.finishedAt),
    policy_summary: ws ? policySummary(ws.policy, parts.caps ?? null) : [],
    ...(ws ? { policy_digest: policyDigest(ws.policy) } : {}),
    inputs: [],
    exit_code: job?.exitCode ?? null,
    trace_id: ctx.traceId,
  };
}

export function usageOfJob(job: JobRecord, storageBytes: number | null = null): ResourceUsage {
  return {
    ...emptyUsage(),
    wall_time_seconds: job.finishedAt === null ? null : round3((job.finishedAt - job.startedAt) / 1000),
    cpu_seconds: job.usage.cpuSeconds === undefined ? null : round3(job.usage.cpuSeconds),
    max_memory_bytes: job.usage.maxMemoryBytes ?? null,
    max_memory_scope: job.usage.maxMemoryBytes === undefined ? null : (job.usage.memoryScope ?? null),
    peak_pids: job.usage.peakPids ?? null,
    storage_bytes: storageBytes,
    output_bytes: job.outputBytes,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Warnings every result about a workspace carries: each measured (not enforced) limit. */
export function measuredLimitWarnings(summary: LimitSummary[]): string[] {
  return summary.filter((l) => l.label === 'measured').map((l) => measuredLimitWarning(l.name, l.value));
}

/** The provider's capabilities, or null when the provider cannot be reached (the summary then stays empty). */
export async function capabilitiesOf(ctx: EngineContext, provider: string): Promise<ProviderCapabilities | null> {
  try {
    return await (await ctx.provider(provider)).capabilities();
  } catch {
    return null;
  }
}
