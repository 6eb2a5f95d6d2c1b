import type { EngineContext } from '../context.js';
import { PROFILES } from '../policy/profiles.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { assertEnforceable, describeLimit, effectivePolicy } from '../policy/effective-policy.js';
import { labelLimit } from '../policy/label-limit.js';
import { validateBudget } from '../policy/budget-fields.js';
import { assertWithinCapacity } from '../policy/host-capacity.js';
import { openNetworkRefused } from '../policy/open-network.js';
import { defaultPolicy, type Budget, type Policy } from '../policy/policy.js';
import { refusePrivateTargets } from '../network/private-targets.js';
import { networkPolicy, type NetworkInput } from '../network/network-input.js';
import { ensureWorkspaceCa } from '../network/egress-ca.js';
import type { ProviderCapabilities } from '../provider.js';
import { crashPoint } from '../crash-points.js';
import { jobUserOfSlot } from '../job-identity.js';
import { currentOwner } from '../store/owner.js';
import { reconcileStore } from '../reconcile.js';
import { notReadyError } from '../infrastructure-errors.js';
import { workspaceExists } from '../lifecycle/workspace-exists.js';
import { transition } from '../lifecycle/transitions.js';
import type { ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { SnapshotRecords } from '../snapshots/snapshot-records.js';
import { reviewPolicyOf } from './review-policy.js';
import { parseRule } from '../rules/rule-text.js';

export { PROFILES };

export interface CreateInput {
  workspaceId?: string;
  provider?: string;
  profile?: string;
  /** `disabled` (default), `enabled` (refused), or `allow=PATTERN[,PATTERN…]` (one or several, #18). */
  network?: NetworkInput;
  /** Refuse an allow-list naming a loopback, private or link-local IP literal (set by the MCP face: an agent's call). */
  privateTargetsRefused?: boolean;
  hostPaths?: string[];
  budget?: Partial<Budget>;
  purpose?: string;
  owner?: string;
  /** Seconds until the workspace expires (gc then removes it). */
  ttlSeconds?: number;
  /** The merge gate its forks' outputs pass before settling into it (#14). */
  reviewPolicy?: { denyPaths?: string[]; maxFiles?: number; maxBytes?: number };
  /** Supervision rules in their text form (core/rules/rule-text.ts, #16). */
  rules?: string[];
}

/**
 * Provisions a workspace. Order matters for fail-closed: the provider is
 * probed and every boundary limit checked BEFORE any state or backend object
 * exists, so a refusal (exit 3) leaves nothing behind.
 */
export async function createWorkspace(ctx: EngineContext, input: CreateInput): Promise<ResultPackage> {
  const providerName = input.provider ?? ctx.defaultProvider;
  const workspaceId = input.workspaceId === undefined ? ctx.ids('ws') : validateId('workspace', input.workspaceId);
  const profile = input.profile ?? 'host';
  if (!(PROFILES as readonly string[]).includes(profile)) {
    throw new EngineError('BAD_ARGUMENT', `unknown profile '${profile.slice(0, 40)}'`, { hint: `choose one of: ${PROFILES.join(', ')}` });
  }
  const network = networkPolicy(input.network);
  if (input.privateTargetsRefused === true) refusePrivateTargets(network.networkAllow);
  if (input.ttlSeconds !== undefined && (!Number.isFinite(input.ttlSeconds) || input.ttlSeconds <= 0)) {
    throw new EngineError('BAD_ARGUMENT', `${inputRef('ttlSeconds')} takes a positive number of seconds`, {
      hint: `for example ${inputRef('ttlSeconds', 3600)} (an hour)`,
      inputsOf: 'create',
    });
  }
  validateBudget(input.budget ?? {}, 'create');
  const reviewPolicy = reviewPolicyOf(input.reviewPolicy ?? {}, null, { verb: 'create', path: 'reviewPolicy.' });
  const rules = (input.rules ?? []).map(parseRule);
  const base = defaultPolicy();
  const policy: Policy = {
    ...network,
    hostPaths: [...(input.hostPaths ?? [])],
    budget: { ...base.budget, ...definedOnly(input.budget ?? {}) },
  };
  const provider = await ctx.provider(providerName);
  const store = ctx.store();
  // The id's check and reconcile's reads in one read transaction: one read lock instead of two (#20).
  const { attention, reused } = store.readConsistently(() => {
    const previous = store.getWorkspace(workspaceId);
    if (previous && previous.state !== 'destroyed') throw workspaceExists(workspaceId, previous.state);
    return { attention: reconcileStore(ctx), reused: previous?.provider };
  });
  // A destroyed id its provider still holds (a removal unverified, or abandoned): made again, the provider refused it
  // only after the new record had replaced the destroyed one, and what it held then hid behind a failed workspace
  // where doctor no longer named it (red team, session 20); made again on another provider, it hid behind the new one.
  // Asked of the provider the destroyed record names, before anything is recorded, and only for such an id.
  if (reused !== undefined && ctx.providerNames().includes(reused) && (await (await ctx.provider(reused)).inspect(workspaceId)).state !== 'missing')
    throw heldAfterDestroy(workspaceId, reused);

  const caps = await provider.capabilities();
  if (policy.network === 'enabled' && labelLimit('network', policy, caps).label === 'measured') throw openNetworkRefused();
  const probe = await provider.probe();
  // A host that cannot back a limit refuses the policy (3); missing or broken machinery is an outage (7).
  if (!probe.ready) throw notReadyError(providerName, probe.checks);
  const effective = effectivePolicy(policy, caps);
  assertEnforceable(effective, providerName);
  assertJobsAtOnce(policy, caps);
  // A budget the host cannot honour is no limit (a 500 GiB image on 79 GB free filled the host disk).
  const capacity = await provider.capacity?.();
  assertWithinCapacity(policy.budget, capacity, providerName, 'create');
  // The provider's own refusals of the plan (a missing or reserved host path) come before the
  // record too: a refused create must not leave a failed workspace holding its id (#10 item 12).
  await provider.checkPlan?.({ workspaceId, policy, profile });

  const now = ctx.clock.now();
  // One commit: the workspace row and the intent land together, before the provider call.
  const { intent, jobSlot } = store.atomically(() => {
    // Again inside the write transaction, with every live workspace's storage budget as promised: read
    // apart, creates running side by side each saw the others' images not yet made and together promised
    // more than the disk had (red team round 3). Conservative: allocated bytes count twice.
    if (capacity?.storage !== undefined) {
      const promised = store.liveStorageBudget(providerName);
      const storage = { ...capacity.storage, committedBytes: Math.max(capacity.storage.committedBytes, promised) };
      assertWithinCapacity(policy.budget, { ...capacity, storage }, providerName, 'create');
    }
    // Recorded as requested and moved on to provisioning in the same write: the path says both (#20: one row write, not two).
    transition('requested', 'provisioning');
    const recorded = store.insertWorkspace({
      id: workspaceId,
      provider: providerName,
      state: 'provisioning',
      profile,
      policy,
      environmentDigest: null,
      purpose: input.purpose ?? null,
      owner: input.owner ?? null,
      createdAt: now,
      updatedAt: now,
      expiresAt: input.ttlSeconds === undefined ? null : now + Math.round(input.ttlSeconds * 1000),
      lifecyclePath: ['requested', 'provisioning'],
    });
    if (reviewPolicy) new SnapshotRecords(store).setReviewPolicy(workspaceId, reviewPolicy);
    return {
      intent: store.openIntent({ workspaceId, jobId: null, op: 'create', provider: providerName, owner: currentOwner(), createdAt: now, traceId: ctx.traceId }),
      jobSlot: recorded.jobSlot,
    };
  });
  crashPoint('create', 'after-intent');
  let descriptor;
  try {
    descriptor = await provider.create({ workspaceId, policy, profile, jobUser: jobUserOfSlot(jobSlot) });
    crashPoint('create', 'after-provider-call');
    // Secrets at egress (#18 item 3): the workspace's own CA, made once here, its keys under the home only (egress-ca.ts).
    if (policy.network === 'allowlist' && caps.simulated !== true) ensureWorkspaceCa(ctx.home, workspaceId);
  } catch (error) {
    store.atomically(() => {
      store.settleIntent(intent, 'failed', ctx.clock.now());
      store.moveWorkspace(workspaceId, 'failed', ctx.clock.now());
    });
    throw error;
  }
  const ws = store.atomically(() => {
    store.settleIntent(intent, 'created', ctx.clock.now());
    for (const rule of rules) store.addRule(workspaceId, rule.text, ctx.clock.now());
    return store.moveWorkspace(workspaceId, 'ready', ctx.clock.now(), { environmentDigest: descriptor.environmentDigest });
  });
  ctx.events.emit({ type: 'workspace.created', workspaceId, provider: providerName });

  const findings = [`lifecycle state: ${ws.state}`, `network: ${describeLimit('network', policy)}`, `isolation: ${caps.layers.join(', ') || '(none)'}`];
  if (ws.purpose) findings.push(`purpose: ${ws.purpose}`);
  if (ws.owner) findings.push(`owner: ${ws.owner}`);
  if (rules.length > 0) findings.push(`rules: ${rules.map((r) => r.text).join('; ')}`);
  if (ws.expiresAt !== null) findings.push(`expires at: ${new Date(ws.expiresAt).toISOString()}`);
  return buildResult({
    outcome_summary: `workspace ${workspaceId} is ready on ${providerName}, running the ${profile} profile`,
    status: 'success',
    key_findings: findings,
    // A simulated provider's limits hold only inside its simulation (labelled simulated): say so.
    warnings:
      caps.simulated === true
        ? [
            ...effective.warnings,
            `the ${providerName} provider simulates its workspace in memory: nothing runs for real and nothing is isolated; use it for tests and demos only`,
          ]
        : effective.warnings,
    resource_usage: { storage_bytes: descriptor.storageBytes ?? null },
    provenance: provenanceFor(ctx, 'create', { workspace: ws, caps, startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}

function heldAfterDestroy(workspaceId: string, providerName: string): EngineError {
  return new EngineError(
    'WORKSPACE_EXISTS',
    `workspace ${workspaceId} was destroyed, but the ${providerName} provider still holds it (its removal was not verified, or was abandoned); nothing was created`,
    {
      hint: "doctor's repair with apply removes what the provider still holds of it; then create it again, or choose another id",
      action: nextAction('doctor', { repair: true, apply: true }),
    },
  );
}

/**
 * A policy allowing more jobs at once than the provider can run is refused
 * before anything is recorded (exit 3), naming why: the engine would
 * otherwise start a second job the provider cannot keep apart (#12 item 8).
 */
function assertJobsAtOnce(policy: Policy, caps: ProviderCapabilities): void {
  const most = caps.jobsAtOnce ?? 1;
  if (policy.budget.concurrency <= most) return;
  const why = caps.reasons.concurrency;
  throw new EngineError(
    'POLICY_DENIED',
    `the ${caps.provider} provider runs at most ${most} job${most === 1 ? '' : 's'} at once per workspace, not ${policy.budget.concurrency}${why ? `: ${why}` : ''}`,
    {
      hint: `ask for a concurrency of ${most} or fewer`,
    },
  );
}

function definedOnly(budget: Partial<Budget>): Partial<Budget> {
  return Object.fromEntries(Object.entries(budget).filter(([, v]) => v !== undefined)) as Partial<Budget>;
}
