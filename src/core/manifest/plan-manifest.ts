/**
 * What prepare would do for a manifest (#17), worked out without changing
 * anything: the workspace it creates under which policy, each copy with its
 * size and digest, the artifacts it declares, the setup commands it runs,
 * and the readiness checks (provider ready, policy enforceable, inputs
 * readable and within the storage budget, env names given, env files
 * readable). plan reports it; prepare carries it out, so the two cannot
 * disagree about what a manifest means.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { parseEnvFile } from '../files/env-file.js';
import { readHostFile, scanHostSource, type ScanOptions } from '../files/host-source.js';
import { assertEnforceable, effectivePolicy, formatBytes } from '../policy/effective-policy.js';
import { assertWithinCapacity } from '../policy/host-capacity.js';
import { defaultPolicy, type Budget, type Policy } from '../policy/policy.js';
import { validateBudget } from '../policy/budget-fields.js';
import { callerPathNote } from './caller-path.js';
import { notReadyError } from '../infrastructure-errors.js';
import { describeCheck } from '../verification/run-checks.js';
import type { CheckKind } from '../verification/verification.js';
import type { LoadedManifest, ManifestRepository } from './read-manifest.js';

export interface PlannedCopy {
  key: string;
  /** As written in the manifest (relative to it). */
  path: string;
  to: string;
  hostPath: string;
  kind: 'file' | 'directory';
  sizeBytes: number;
  fileCount: number;
  sha256: string;
}

export interface PlannedClone extends ManifestRepository {
  commit: string;
}

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** A failed check's refusal, as the verb it stands for would give it (prepare throws the first). */
  error?: EngineError;
}

export interface ManifestPlan {
  loaded: LoadedManifest;
  workspaceId: string;
  provider: string;
  profile: string;
  policy: Policy;
  ttlSeconds: number | undefined;
  copies: PlannedCopy[];
  clones: PlannedClone[];
  checks: ReadinessCheck[];
  ready: boolean;
  /** The setup commands' environment: names from the env files and the manifest's env names. Never recorded. */
  env: Record<string, string>;
}

/** One step of prepare, as plan announces it and prepare reports it done. */
export type PlanStep =
  | { step: 'create'; workspace_id: string; provider: string; profile: string; budget: Budget; ttl_seconds?: number }
  | { step: 'copy'; input: string; from: string; to: string; type: 'file' | 'directory'; size_bytes: number; file_count: number; sha256: string }
  | { step: 'clone'; input: string; from: string; ref: string; commit: string; to: string }
  | { step: 'declare'; name: string; purpose: string }
  | { step: 'setup'; index: number; argv: string[]; env_names: string[] }
  /** A check of the verify section, judged after the job named in `after`. */
  | { step: 'verify'; index: number; kind: CheckKind; check: string; after: string };

/** The no-op job whose checks the verify section is when the manifest has no setup command, and when a later prepare re-judges them. */
export const NO_OP_ARGV = ['true'];

/**
 * Works out the plan. `env` is the caller's environment (only the names the
 * manifest declares are taken from it). Never throws for a readiness
 * problem: each one is a failed check.
 */
export async function planManifest(ctx: EngineContext, loaded: LoadedManifest, env: Record<string, string>): Promise<ManifestPlan> {
  const m = loaded.manifest;
  const budget = Object.fromEntries(Object.entries(m.policy?.budget ?? {}).filter(([, v]) => v !== undefined)) as Partial<Budget>;
  validateBudget(budget);
  const base = defaultPolicy();
  const policy: Policy = { network: base.network, hostPaths: [], budget: { ...base.budget, ...budget } };
  const providerName = m.provider ?? ctx.defaultProvider;
  const checks: ReadinessCheck[] = [];
  const profile = m.profile ?? 'host';
  const providerReady = await providerCheck(ctx, providerName, policy);
  checks.push(providerReady);
  const programs = [
    ...(m.setup ?? []).map((s, index) => ({ name: `setup[${index}]`, program: s.argv[0]! })),
    ...loaded.verifyItems.flatMap((c, index) => (c.kind === 'verify' ? [{ name: `verify[${index}]`, program: c.argv[0]! }] : [])),
    // The no-op job a re-judge (and a manifest without setup) hangs the checks on.
    ...(loaded.checks.length > 0 ? [{ name: 'verify job', program: NO_OP_ARGV[0]! }] : []),
  ];
  if (providerReady.ok && programs.length > 0) checks.push(...(await toolChecks(ctx, providerName, profile, programs)));

  const copies: PlannedCopy[] = [];
  for (const input of loaded.inputs) {
    try {
      // A manifest's author is not the user: a nested clone's .git (its config may hold a token) never comes in (files/host-source.ts).
      copies.push({
        key: input.key,
        path: input.path,
        to: input.to,
        hostPath: input.hostPath,
        ...(await digestHostSource(input.hostPath, { withoutGitMetadata: true })),
      });
      checks.push({ name: `${input.key} ${input.path}`, ok: true, detail: 'readable' });
    } catch (error) {
      checks.push({ name: `${input.key} ${input.path}`, ok: false, detail: messageOf(error), ...errorOf(error) });
    }
  }
  const clones: PlannedClone[] = [];
  // A local clone's checkout is counted (its blobs' sizes); its .git, and a remote's checkout, are known only once cloned: the copy in enforces those.
  let checkoutBytes = 0;
  const { checkedOutBytes } = await import('./git-input.js');
  for (const repo of loaded.repositories) {
    const name = `${repo.key} ${repo.shown}@${repo.ref}`;
    try {
      const { resolveGitRef } = await import('./git-input.js');
      const commit = await resolveGitRef(repo, repo.ref);
      clones.push({ ...repo, commit });
      checks.push({ name, ok: true, detail: `resolves to ${commit}` });
      if (!repo.remote) checkoutBytes += await checkedOutBytes(repo, commit);
    } catch (error) {
      checks.push({ name, ok: false, detail: messageOf(error), ...errorOf(error) });
    }
  }
  const total = copies.reduce((n, c) => n + c.sizeBytes, 0) + checkoutBytes;
  const what =
    loaded.repositories.length === 0
      ? 'inputs take'
      : `inputs and local clones' checkouts take${loaded.repositories.some((r) => r.remote) ? ' (remote clones not counted)' : ''}`;
  const unknown = loaded.repositories.length === 0 ? '' : '; the clones’ .git is counted when it is copied in';
  checks.push(
    total <= policy.budget.storageBytes
      ? { name: 'storage', ok: true, detail: `${what} ${formatBytes(total)} of the ${formatBytes(policy.budget.storageBytes)} storage budget${unknown}` }
      : {
          name: 'storage',
          ok: false,
          detail: `${what} ${formatBytes(total)}, past the ${formatBytes(policy.budget.storageBytes)} storage budget`,
          error: new EngineError('POLICY_DENIED', `the inputs take ${total} bytes, past the storage_bytes budget of ${policy.budget.storageBytes}`, {
            hint: 'raise policy.budget.storageBytes in the manifest, or copy less',
          }),
        },
  );

  const values: Record<string, string> = {};
  for (const file of loaded.envFiles) {
    try {
      Object.assign(values, parseEnvFile(await readFile(file.hostPath, 'utf8'), file.path));
      checks.push({ name: `${file.key} ${file.path}`, ok: true, detail: 'readable NAME=VALUE lines' });
    } catch (error) {
      const refusal =
        error instanceof EngineError
          ? error
          : new EngineError('FILE_NOT_FOUND', `${file.key} ${file.path} could not be read`, { hint: 'check that it exists and that you may read it' });
      checks.push({ name: `${file.key} ${file.path}`, ok: false, detail: refusal.message, error: refusal });
    }
  }
  for (const name of m.env ?? []) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value === undefined)
      checks.push({
        name: `env ${name}`,
        ok: false,
        detail: `${name} is not set in the caller's environment`,
        error: new EngineError('BAD_ARGUMENT', `the manifest's env names ${name}, which is not set in the caller's environment`, {
          hint: `set ${name}, or take it out of the manifest's env`,
        }),
      });
    else {
      values[name] = value;
      checks.push({ name: `env ${name}`, ok: true, detail: 'set (the value is never recorded)' });
    }
  }
  return {
    loaded,
    workspaceId: m.id,
    provider: providerName,
    profile,
    policy,
    ttlSeconds: m.ttl,
    copies,
    clones,
    checks,
    ready: checks.every((c) => c.ok),
    env: values,
  };
}

/** The steps prepare takes for a plan, in order. */
export function planSteps(plan: ManifestPlan): PlanStep[] {
  const m = plan.loaded.manifest;
  const envNames = Object.keys(plan.env).sort();
  return [
    {
      step: 'create',
      workspace_id: plan.workspaceId,
      provider: plan.provider,
      profile: plan.profile,
      budget: { ...plan.policy.budget },
      ...(plan.ttlSeconds === undefined ? {} : { ttl_seconds: plan.ttlSeconds }),
    },
    ...plan.copies.map((c): PlanStep => ({
      step: 'copy',
      input: c.key,
      from: c.path,
      to: c.to,
      type: c.kind,
      size_bytes: c.sizeBytes,
      file_count: c.fileCount,
      sha256: c.sha256,
    })),
    ...plan.clones.map((c): PlanStep => ({ step: 'clone', input: c.key, from: c.shown, ref: c.ref, commit: c.commit, to: c.to })),
    ...plan.loaded.artifacts.map((a): PlanStep => ({ step: 'declare', name: a.name, purpose: a.purpose })),
    ...(m.setup ?? []).map((s, index): PlanStep => ({ step: 'setup', index, argv: [...s.argv], env_names: envNames })),
    ...plan.loaded.verifyItems.map((c, index): PlanStep => ({ step: 'verify', index, kind: c.kind, check: describeCheck(c), after: verifiedAfter(plan) })),
  ];
}

/** Which job's checks the verify section is at a first prepare: the last setup command's, or the no-op job's. */
export function verifiedAfter(plan: ManifestPlan): string {
  const setup = plan.loaded.manifest.setup ?? [];
  return setup.length > 0 ? `setup[${setup.length - 1}]` : `a no-op job (${NO_OP_ARGV.join(' ')})`;
}

/** One line for a step. */
export function stepText(step: PlanStep): string {
  switch (step.step) {
    case 'create':
      return `create workspace ${step.workspace_id} on ${step.provider} (${step.profile} profile): memory ${formatBytes(step.budget.memoryBytes)}, cpu ${step.budget.cpuLimit}, pids ${step.budget.pidsLimit}, storage ${formatBytes(step.budget.storageBytes)}, ${step.budget.wallClockSeconds} s per job, network disabled${step.ttl_seconds === undefined ? '' : `, expires ${step.ttl_seconds} s after`}`;
    case 'copy':
      return `copy ${step.from} → ${step.to}${step.type === 'directory' ? '/' : ''}: ${step.type === 'directory' ? `${step.file_count} file(s), ` : ''}${step.size_bytes} bytes, ${step.sha256}`;
    case 'clone':
      return `clone ${step.from} at ${step.ref} (commit ${step.commit}) → ${step.to}/, an independent clone (no hardlinks, no alternates)`;
    case 'declare':
      return `declare artifact ${step.name}: ${step.purpose}`;
    case 'setup':
      return `setup[${step.index}]: ${JSON.stringify(step.argv)}${step.env_names.length > 0 ? ` with env ${step.env_names.join(', ')}` : ''}`;
    case 'verify':
      return `verify[${step.index}] (${step.kind}) ${step.check}: judged after ${step.after}`;
  }
}

/** Size, file count and sha256 of a host file or directory, computed exactly as the copy records them (files/copy-in.ts). */
export async function digestHostSource(
  hostPath: string,
  options: ScanOptions = {},
): Promise<{ kind: 'file' | 'directory'; sizeBytes: number; fileCount: number; sha256: string }> {
  const source = await scanHostSource(hostPath, options);
  const manifest: string[] = [];
  for (const file of source.files) {
    const bytes = await readHostFile(source, file);
    manifest.push(`${createHash('sha256').update(bytes).digest('hex')}  ${bytes.length}  ${file.relative}`);
  }
  const sha =
    source.kind === 'file'
      ? (manifest[0]?.split('  ')[0] ?? createHash('sha256').digest('hex'))
      : createHash('sha256')
          .update(`${manifest.join('\n')}\n`)
          .digest('hex');
  return { kind: source.kind, sizeBytes: source.totalBytes, fileCount: source.files.length, sha256: `sha256:${sha}` };
}

async function providerCheck(ctx: EngineContext, name: string, policy: Policy): Promise<ReadinessCheck> {
  const check = `provider ${name}`;
  try {
    const provider = await ctx.provider(name);
    const probe = await provider.probe();
    if (!probe.ready) {
      const failed = probe.checks.filter((c) => !c.ok).map((c) => c.name);
      return { name: check, ok: false, detail: `not ready here${failed.length > 0 ? `: ${failed.join(', ')}` : ''}`, error: notReadyError(name, probe.checks) };
    }
    const caps = await provider.capabilities();
    assertEnforceable(effectivePolicy(policy, caps), name);
    assertWithinCapacity(policy.budget, await provider.capacity?.(), name);
    return { name: check, ok: true, detail: 'ready; every limit of the policy is enforceable' };
  } catch (error) {
    return { name: check, ok: false, detail: messageOf(error), ...errorOf(error) };
  }
}

/**
 * Each setup and verify command's program (argv[0]) looked up on the
 * profile's PATH through the provider, before prepare makes anything. Only
 * argv[0] is looked up: a program named by a path (`./build.sh`,
 * `.venv/bin/pip`) may be made by an input or an earlier setup command, and
 * what a shell or an interpreter runs in turn is not seen.
 */
async function toolChecks(
  ctx: EngineContext,
  providerName: string,
  profile: string,
  programs: ReadonlyArray<{ name: string; program: string }>,
): Promise<ReadinessCheck[]> {
  const provider = await ctx.provider(providerName);
  const named = programs.filter((s) => !s.program.includes('/'));
  const byPath = programs.filter((s) => s.program.includes('/'));
  const checks: ReadinessCheck[] = byPath.map((s) => ({
    name: `${s.name} ${s.program}`,
    ok: true,
    detail: 'a path, not looked up: an input or an earlier setup command may make it',
  }));
  if (named.length === 0) return checks;
  if (provider.findTools === undefined) {
    checks.push({
      name: 'setup and verify tools',
      ok: true,
      detail: `not checked: the ${providerName} provider cannot look up programs before a workspace exists (${[...new Set(named.map((s) => s.program))].join(', ')})`,
    });
    return checks;
  }
  const found = await provider.findTools(profile, [...new Set(named.map((s) => s.program))]);
  for (const s of named) {
    const at = found[s.program] ?? null;
    checks.push(
      at !== null
        ? { name: `${s.name} ${s.program}`, ok: true, detail: `found at ${at} in the ${profile} profile${elsewhereForCaller(s.program, at)}` }
        : {
            name: `${s.name} ${s.program}`,
            ok: false,
            detail: `${s.program} is not on the PATH of the ${profile} profile on ${providerName}`,
            error: new EngineError('BAD_ARGUMENT', `${s.name} runs ${s.program}, which is not on the PATH of the ${profile} profile on ${providerName}`, {
              hint: `use a program the profile has, or name it by a path an input or an earlier setup command makes (native's host profile takes its programs from the host)`,
            }),
          },
    );
  }
  return checks;
}

function errorOf(error: unknown): { error?: EngineError } {
  return error instanceof EngineError ? { error } : {};
}

function messageOf(error: unknown): string {
  return error instanceof EngineError ? error.message : 'could not be checked';
}

/** The note for the caller's own PATH (this process's): see callerPathNote. */
function elsewhereForCaller(program: string, at: string): string {
  return callerPathNote(program, at, process.env.PATH);
}
