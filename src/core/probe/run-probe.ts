/**
 * Runs containment scenarios in one dedicated, small-budget workspace created
 * through the engine's own verbs (so the probe exercises exactly what an agent
 * gets), one job per scenario. The workspace is always destroyed and every
 * canary, listener and variable removed in `finally`, whatever happened.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineContext } from '../context.js';
import { caDir } from '../network/egress-ca.js';
import { TEST_UPSTREAM_CA_ENV } from '../network/egress-resolver.js';
import type { SecretInput } from '../network/egress-secrets.js';
import { isEngineError } from '../errors.js';
import { jobUserOfSlot } from '../job-identity.js';
import { labelLimit } from '../policy/label-limit.js';
import { DEFAULT_BUDGET, defaultPolicy, type Budget } from '../policy/policy.js';
import type { ProviderCapabilities } from '../provider.js';
import type { AttentionItem } from '../result/result-package.js';
import { renderJson } from '../result/render-json.js';
import { renderMarkdown } from '../result/render-markdown.js';
import { selectExcerpt } from '../output/select-excerpt.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';
import { createWorkspace } from '../verbs/create.js';
import { destroyWorkspace } from '../verbs/destroy.js';
import { readJobLog } from '../output/job-evidence.js';
import { listFiles } from '../verbs/ls-files.js';
import { runJob } from '../verbs/run.js';
import { exportFile } from '../files/export-artifact.js';
import { makeHostDir, randomToken, removePath } from './host-fixtures.js';
import { startSiblingJob } from './sibling-workspace.js';
import type { HostActOutcome, JobFacts, LandedBytes, NetworkSideOutcome, ProbeHost, Scenario, ScenarioResult, SideWorkspaceOutcome } from './probe-types.js';

/**
 * Small on purpose: the bomb, the hog and /tmp hit their caps in about a
 * second each, and 20 s of wall clock bounds any scenario that hangs.
 */
export const PROBE_BUDGET: Readonly<Partial<Budget>> = Object.freeze({
  memoryBytes: 128 * 1024 * 1024,
  cpuLimit: 1,
  pidsLimit: 64,
  storageBytes: 32 * 1024 * 1024,
  wallClockSeconds: 20,
  outputBytes: 256 * 1024,
});

const EXCERPT_BYTES = 700;

export interface ProbeRun {
  provider: string;
  workspaceId: string;
  /** The workspace's record after the probe (destroyed, unless removal failed). */
  workspace: WorkspaceRecord | undefined;
  results: ScenarioResult[];
  warnings: string[];
  /** Leftovers the engine's reconciliation reported when the workspace was created. */
  attention: AttentionItem[];
  startedAt: number;
  finishedAt: number;
}

export async function runProbe(ctx: EngineContext, input: { provider: string; caps: ProviderCapabilities; scenarios: readonly Scenario[] }): Promise<ProbeRun> {
  const startedAt = ctx.clock.now();
  const warnings: string[] = [];
  const workspaceId = `probe-${randomToken().slice(0, 12)}`;
  const created = await createWorkspace(ctx, {
    workspaceId,
    provider: input.provider,
    purpose: 'headspace probe: containment scenarios (destroyed when the probe ends)',
    budget: { ...PROBE_BUDGET },
  });
  const budget: Budget = { ...DEFAULT_BUDGET, ...PROBE_BUDGET };
  warnings.push(...created.warnings);
  const results: ScenarioResult[] = [];
  try {
    for (const scenario of input.scenarios) {
      results.push(await runScenario(ctx, { scenario, workspaceId, provider: input.provider, caps: input.caps, budget }));
    }
  } finally {
    try {
      const destroyed = await destroyWorkspace(ctx, { workspaceId });
      warnings.push(...destroyed.warnings);
    } catch (error) {
      warnings.push(`the probe workspace ${workspaceId} could not be destroyed: ${(error as Error).message}; destroy ${workspaceId} again`);
    }
  }
  return {
    provider: input.provider,
    workspaceId,
    workspace: ctx.store().getWorkspace(workspaceId),
    results,
    warnings,
    attention: created.attention,
    startedAt,
    finishedAt: ctx.clock.now(),
  };
}

/**
 * Pure: why `scenario` cannot show anything on this provider, or undefined.
 * The probe workspace has the closed default policy: a scenario needing a
 * limit that is only measured there proves nothing; one testing an
 * isolation layer the provider does not declare (caps.layers) does not apply.
 */
export function whyNotApplicable(
  scenario: Pick<Scenario, 'requires' | 'requiresLayers' | 'requiresFeatures'>,
  provider: string,
  caps: ProviderCapabilities,
): string | undefined {
  const unenforced = scenario.requires.map((limit) => ({ limit, ...labelLimit(limit, defaultPolicy(), caps) })).filter((l) => l.label === 'measured');
  if (unenforced.length > 0) {
    const why = unenforced.map((l) => `${l.limit}${caps.reasons[l.limit] ? ` (${caps.reasons[l.limit]})` : ''}`).join('; ');
    return `the ${provider} provider does not enforce ${why}`;
  }
  const missingFeatures = (scenario.requiresFeatures ?? []).filter((feature) => !(caps.features ?? []).includes(feature));
  if (missingFeatures.length > 0) return `the ${provider} provider does not offer ${missingFeatures.join(', ')}, which this scenario tests`;
  const missingLayers = (scenario.requiresLayers ?? []).filter((layer) => !caps.layers.includes(layer));
  if (missingLayers.length > 0)
    return `the ${provider} provider has no ${missingLayers.join(', ')} layer, which this scenario tests (its layers: ${caps.layers.join(', ') || 'none'})`;
  return undefined;
}

async function runScenario(
  ctx: EngineContext,
  input: { scenario: Scenario; workspaceId: string; provider: string; caps: ProviderCapabilities; budget: Budget },
): Promise<ScenarioResult> {
  const { scenario, caps } = input;
  const started = ctx.clock.now();
  const result = (fields: Pick<ScenarioResult, 'verdict' | 'evidence'> & Partial<ScenarioResult>): ScenarioResult => ({
    id: scenario.id,
    title: scenario.title,
    jobId: null,
    excerpt: null,
    durationMs: ctx.clock.now() - started,
    ...fields,
  });
  const skip = whyNotApplicable(scenario, input.provider, caps);
  if (skip !== undefined) return result({ verdict: 'skipped', evidence: skip });

  const cleanups: Array<() => unknown> = [];
  const provider = await ctx.provider(input.provider);
  const host: ProbeHost = {
    home: ctx.home,
    budget: input.budget,
    token: randomToken,
    async readWorkspaceFile(path) {
      try {
        const stream = await provider.read(input.workspaceId, path);
        const bytes = stream.size;
        await stream.close();
        return { bytes };
      } catch (error) {
        return { refused: isEngineError(error) ? error.code : (error as Error).message.slice(0, 80) };
      }
    },
    // --- host-side acts on hostile content (#10 items 5, 8, 12) ---
    async exportWorkspaceFile(path) {
      const dir = await makeHostDir('export', 0o700);
      try {
        const outcome = await actOutcome(() =>
          exportFile(provider, input.workspaceId, path, join(dir, 'exported'), {
            overwrite: false,
            cap: { maxBytes: input.budget.storageBytes, source: "the workspace's storage_bytes budget" },
          }),
        );
        return { ...outcome, landed: await landedBytes(dir) };
      } finally {
        await removePath(dir);
      }
    },
    async listWorkspaceFiles() {
      let entries = 0;
      const outcome = await actOutcome(async () => {
        entries = (await provider.list(input.workspaceId, '', 10_000)).entries.length;
      });
      return { ...outcome, entries };
    },
    async checkpointWorkspace() {
      const ops = provider.snapshots;
      if (ops === undefined) throw new Error(`the ${input.provider} provider has no snapshots`);
      const checkpointId = `probe-cp-${randomToken().slice(0, 12)}`;
      let digestedBytes: number | null = null;
      const outcome = await actOutcome(async () => {
        digestedBytes = (await ops.checkpoint(input.workspaceId, checkpointId)).bytes;
        cleanups.push(() => ops.drop(input.workspaceId, checkpointId));
      });
      return { ...outcome, digestedBytes };
    },
    // --- end of host-side acts ---
    async renderFileListing(path) {
      return renderMarkdown(await listFiles(ctx, { workspaceId: input.workspaceId, ...(path === undefined ? {} : { path }) }));
    },
    removeWorkspacePath: (path) => provider.removePath(input.workspaceId, path),
    async reapLeftovers() {
      const report = await provider.stop(input.workspaceId);
      return { found: report.stopped, empty: report.empty };
    },
    defer: (step) => void cleanups.push(step),
    // Cross-workspace scenarios (#10 item 4): the sibling is always destroyed, after the scenario.
    async startSibling(argv) {
      const sibling = await startSiblingJob(ctx, { provider: input.provider, budget: PROBE_BUDGET, argv });
      cleanups.push(() => sibling.finish());
      return sibling;
    },
    tryNetworkWorkspace: (allow, argv, options) => tryNetworkWorkspace(ctx, input.provider, allow, argv, options),
    async plantSnapshotCanaries() {
      const ops = provider.snapshots;
      if (ops === undefined) throw new Error(`the ${input.provider} provider has no snapshots`);
      const checkpointToken = `hs-cp-canary-${randomToken()}`;
      const forkToken = `hs-fork-canary-${randomToken()}`;
      const put = (workspaceId: string, path: string, text: string) =>
        provider.write(workspaceId, path, Buffer.from(text), { expectedSha256: createHash('sha256').update(text).digest('hex'), overwrite: true });
      const checkpointId = `probe-cp-${randomToken().slice(0, 12)}`;
      const forkId = `probe-${randomToken().slice(0, 12)}-fork`;
      await put(input.workspaceId, 'snapshot-canary.txt', checkpointToken);
      await ops.checkpoint(input.workspaceId, checkpointId);
      cleanups.push(() => ops.drop(input.workspaceId, checkpointId));
      await provider.removePath(input.workspaceId, 'snapshot-canary.txt');
      // The fork shares the probe workspace's job identity: it never runs a job, and it goes with the scenario.
      const slot = ctx.store().getWorkspace(input.workspaceId)?.jobSlot ?? 1;
      await ops.fork(
        input.workspaceId,
        checkpointId,
        { workspaceId: forkId, policy: { ...defaultPolicy(), budget: input.budget }, profile: 'host', jobUser: jobUserOfSlot(slot) },
        `${checkpointId}-base`,
      );
      cleanups.push(() => provider.remove(forkId));
      await put(forkId, 'fork-canary.txt', forkToken);
      return { checkpointToken, forkToken, where: `snapshot-canary.txt in checkpoint ${checkpointId}, fork-canary.txt in fork ${forkId}` };
    },
    trySideWorkspace: (hostPaths, between, argv, budget) =>
      trySideWorkspace(ctx, input.provider, { hostPaths, between, argv, ...(budget === undefined ? {} : { budget }) }),
  };
  const watching = new AbortController();
  let watcher: Promise<void> = Promise.resolve();
  try {
    const attempt = await scenario.prepare(host);
    watcher = attempt.watch?.(watching.signal).catch(() => undefined) ?? watcher;
    const jobId = ctx.ids('job');
    const ran = await runJob(ctx, { workspaceId: input.workspaceId, argv: attempt.argv, jobId, ...(attempt.env ? { env: attempt.env } : {}) });
    watching.abort();
    await watcher;
    const job: JobFacts = {
      status: ran.status,
      exitCode: ran.provenance.exit_code,
      output: readJobLog(ctx, jobId)?.toString('utf8') ?? '',
      rendered: `${renderMarkdown(ran)}\n${renderJson(ran)}`,
    };
    const judgement = scenario.judge(job, await attempt.observe(job));
    const excerpt = judgement.verdict === 'contained' ? null : excerptOf(judgement.lines ?? [], job.output);
    return result({ verdict: judgement.verdict, evidence: judgement.evidence, jobId, excerpt });
  } catch (error) {
    // The probe itself failed here: nothing was shown to hold, so this is never `contained`.
    return result({ verdict: 'skipped', evidence: `the probe could not run this scenario: ${(error as Error).message.slice(0, 200)}` });
  } finally {
    watching.abort();
    await watcher;
    for (const step of cleanups.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
  }
}

async function actOutcome(act: () => Promise<unknown>): Promise<HostActOutcome> {
  try {
    await act();
    return { ok: true };
  } catch (error) {
    if (isEngineError(error)) return { ok: false, refused: error.code, category: error.category };
    return { ok: false, refused: (error as Error).message.slice(0, 80), category: 'infrastructure_failure' };
  }
}

/** Apparent and allocated bytes of every file a host-side export left in `dir`. */
async function landedBytes(dir: string): Promise<LandedBytes> {
  let apparentBytes = 0;
  let allocatedBytes = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const info = await lstat(join(dir, name)).catch(() => undefined);
    if (info === undefined) continue;
    apparentBytes += info.size;
    allocatedBytes += info.blocks * 512;
  }
  return { apparentBytes, allocatedBytes };
}

/** See ProbeHost.trySideWorkspace. */
async function trySideWorkspace(
  ctx: EngineContext,
  provider: string,
  attempt: { hostPaths: string[]; between: () => Promise<void>; argv: string[]; budget?: Partial<Budget> },
): Promise<SideWorkspaceOutcome> {
  const workspaceId = `probe-${randomToken().slice(0, 12)}-side`;
  try {
    await createWorkspace(ctx, {
      workspaceId,
      provider,
      hostPaths: attempt.hostPaths,
      purpose: 'headspace probe: a create-time attempt (destroyed at once)',
      budget: { ...PROBE_BUDGET, ...attempt.budget },
    });
  } catch (error) {
    return { refused: isEngineError(error) ? error.code : (error as Error).message.slice(0, 120), at: 'create' };
  }
  try {
    await attempt.between();
    const jobId = ctx.ids('job');
    try {
      const ran = await runJob(ctx, { workspaceId, argv: attempt.argv, jobId });
      // A provider refusal surfaces as an infrastructure failure carrying its message.
      if (ran.status === 'infrastructure_failure') return { refused: (ran.warnings[0] ?? 'the run failed').slice(0, 200), at: 'run' };
      return { output: readJobLog(ctx, jobId)?.toString('utf8') ?? '', exitCode: ran.provenance.exit_code };
    } catch (error) {
      return { refused: isEngineError(error) ? error.code : (error as Error).message.slice(0, 120), at: 'run' };
    }
  } finally {
    await destroyWorkspace(ctx, { workspaceId, force: true }).catch(() => undefined);
  }
}

/** See ProbeHost.tryNetworkWorkspace. */
async function tryNetworkWorkspace(
  ctx: EngineContext,
  provider: string,
  allow: string[],
  argv: string[],
  options: { secrets?: SecretInput[]; caKeyPaths?: boolean; upstreamCa?: string } = {},
): Promise<NetworkSideOutcome> {
  const workspaceId = `probe-${randomToken().slice(0, 12)}-net`;
  try {
    await createWorkspace(ctx, {
      workspaceId,
      provider,
      network: `allow=${allow.join(',')}`,
      purpose: 'headspace probe: a network allow-list attempt (destroyed at once)',
      budget: PROBE_BUDGET,
    });
  } catch (error) {
    return { refused: isEngineError(error) ? error.code : (error as Error).message.slice(0, 120), at: 'create' };
  }
  try {
    const jobId = ctx.ids('job');
    // The CA keys' host paths (#18 item 3): what a job that hunts for them would most want to open.
    const keyPaths = options.caKeyPaths === true ? ['ca-key.pem', 'leaf-key.pem'].map((f) => join(caDir(ctx.home, workspaceId), f)) : [];
    // A probe's own upstream CA is trusted by this job's proxy only, never through the process's environment.
    const jobCtx = options.upstreamCa === undefined ? ctx : { ...ctx, egressTestEnv: { [TEST_UPSTREAM_CA_ENV]: options.upstreamCa } };
    const ran = await runJob(jobCtx, {
      workspaceId,
      argv: [...argv, ...keyPaths],
      jobId,
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
    });
    if (ran.status === 'infrastructure_failure') return { refused: (ran.warnings[0] ?? 'the run failed').slice(0, 200), at: 'run' };
    const caKeySha256 = keyPaths.flatMap((path) => (existsSync(path) ? [createHash('sha256').update(readFileSync(path)).digest('hex')] : []));
    return {
      output: readJobLog(ctx, jobId)?.toString('utf8') ?? '',
      exitCode: ran.provenance.exit_code,
      decisions: ctx.store().networkDecisions(jobId),
      ...(options.caKeyPaths === true ? { caKeySha256 } : {}),
    };
  } catch (error) {
    return { refused: isEngineError(error) ? error.code : (error as Error).message.slice(0, 120), at: 'run' };
  } finally {
    await destroyWorkspace(ctx, { workspaceId, force: true }).catch(() => undefined);
  }
}

function excerptOf(lines: readonly string[], output: string): string {
  const text = lines.length > 0 ? lines.join('\n') : output;
  return selectExcerpt(text, { budgetBytes: EXCERPT_BYTES }).excerpt || '(no output)';
}
