/**
 * The vocabulary of `headspace probe`: a scenario is a real escape attempt
 * run inside a real workspace, plus host-side set-up and observation, plus a
 * PURE judge that turns the facts into a verdict. The judge never touches the
 * host, so every verdict rule is unit-tested on hand-written facts.
 *
 * Verdict semantics:
 *  - `contained`: the attempt ran and every fact says the boundary held;
 *  - `escaped`: at least one fact says it did not (or a budget did not end the
 *    job the way it must), the evidence names which;
 *  - `skipped`: the attempt could not be made meaningfully (the provider does
 *    not claim the limit it tests, or the attempt itself could not run). It is
 *    never counted as contained.
 */
import type { Budget, LimitName } from '../policy/policy.js';
import type { ProviderFeature } from '../provider.js';
import type { ResultStatus } from '../status.js';
import type { SecretInput } from '../network/egress-secrets.js';
import type { EgressDecision } from '../network/egress-ledger.js';

export type Verdict = 'contained' | 'escaped' | 'skipped';

export interface Judgement {
  verdict: Verdict;
  /** One line, safe to print: never the content of a host file the job reached. */
  evidence: string;
  /** Output lines that show an escape, for the excerpt; default: chosen from the whole output. */
  lines?: string[];
}

/** What the engine recorded about the attempt's job. */
export interface JobFacts {
  status: ResultStatus;
  exitCode: number | null;
  /** The job's captured stdout+stderr (merged a line at a time), as text. */
  output: string;
  /** The run's result package as a reader gets it: its markdown, then its JSON (what an agent reads of the job's output). */
  rendered?: string;
}

/** What a scenario may ask of the host side; built by run-probe for one probe workspace. */
export interface ProbeHost {
  /** HEADSPACE_HOME: it holds the state store and (native) every workspace's files. */
  home: string;
  /** The probe workspace's budget. */
  budget: Budget;
  /** A fresh random hex token, unguessable from inside. */
  token(): string;
  /**
   * Reads a workspace file host-side through the provider, as `export` would.
   * Only the size of what came back is reported, never its bytes.
   */
  readWorkspaceFile(path: string): Promise<{ bytes: number } | { refused: string }>;
  // --- host-side acts on hostile content (#10 items 5, 8, 12; scenarios-host-side.ts) ---
  /**
   * Exports a workspace file the way `export` does (the same core copy, the
   * workspace's storage budget as the default cap) into a fresh host temp
   * directory, measures what landed there, and removes the directory. Only
   * sizes and the outcome are reported, never content.
   */
  exportWorkspaceFile(path: string): Promise<HostActOutcome & { landed: LandedBytes }>;
  /** Lists the whole workspace through the provider, as `ls-files` does (limit 10,000). */
  listWorkspaceFiles(): Promise<HostActOutcome & { entries: number }>;
  /**
   * Checkpoints the workspace through the provider, as `checkpoint` does, and
   * drops the checkpoint after the scenario: the outcome, and on success the
   * bytes its digest read (the tree's file bytes). Throws when the provider
   * has no snapshots.
   */
  checkpointWorkspace(): Promise<HostActOutcome & { digestedBytes: number | null }>;
  // --- end of host-side acts ---
  /**
   * The workspace's file listing (under `path`) as `ls-files` renders it in
   * markdown: what a person or a model reads (added for the hostile-names
   * scenario, #10 item 11).
   */
  renderFileListing(path?: string): Promise<string>;
  /**
   * Removes a path the scenario's job made in the workspace, host-side
   * through the provider (as `put --overwrite` does), so a later scenario
   * does not carry it: e.g. the 1,500-deep tree, which made the snapshot
   * scenario's checkpoint compare 1,500 directories (#20: ~20 s).
   */
  removeWorkspacePath(path: string): Promise<void>;
  /** Ends whatever of the workspace still runs after its job; `found` says something did. */
  reapLeftovers(): Promise<{ found: boolean; empty: boolean }>;
  /**
   * Registers a clean-up step (remove a canary, close a listener, unset a
   * variable). Every registered step runs after the scenario, in reverse
   * order, even when `prepare` itself failed half-way.
   */
  defer(step: () => unknown): void;
  /**
   * Create-time attempts (#10 item 7): creates a second small workspace on
   * the probe's provider with `hostPaths`, runs `between` (e.g. re-point a
   * link), then one job, and always destroys the workspace. A refusal at
   * create or at run is reported with its code or message, never thrown.
   * `budget` (second red team, item 2) replaces parts of the probe's own
   * budget for that workspace, e.g. more storage than the host has.
   */
  trySideWorkspace(hostPaths: string[], between: () => Promise<void>, argv: string[], budget?: Partial<Budget>): Promise<SideWorkspaceOutcome>;
  /**
   * Creates a SIBLING workspace (the probe's budget, same provider) and starts
   * `argv` in it in the background: for scenarios about what one workspace
   * can do to another. The sibling is destroyed by `finish()`, which the
   * probe also runs after the scenario whatever happened.
   */
  startSibling(argv: string[]): Promise<SiblingJob>;
  /**
   * Network allow-list attempts (#18): creates a side workspace with
   * `network allow=…` (the probe's budget), runs one job in it through the
   * run verb (so the engine's egress proxy stands between it and the host),
   * and always destroys it. The outcome carries the job's egress decisions
   * as the engine journalled them. `options.secrets` (#18 item 3): the job runs with them (run --secret);
   * `options.caKeyPaths` appends the host paths of the side workspace's CA keys to argv, and the outcome
   * then carries their digests (read before the workspace goes), for a job that tries to read them.
   * `options.upstreamCa` (a PEM certificate): that job's proxy also trusts it for upstreams (test mode, that job
   * only), so a loopback HTTPS server the probe runs can stand for a secret's host.
   */
  tryNetworkWorkspace(
    allow: string[],
    argv: string[],
    options?: { secrets?: SecretInput[]; caKeyPaths?: boolean; upstreamCa?: string },
  ): Promise<NetworkSideOutcome>;
  /**
   * Snapshots (#14): writes a canary into the probe workspace, checkpoints
   * it and deletes it (the token then lives only in the checkpoint's data),
   * and writes a second canary into a fork made from that checkpoint. The
   * fork and the checkpoint are removed after the scenario. Throws when the
   * provider has no snapshots.
   */
  plantSnapshotCanaries(): Promise<{ checkpointToken: string; forkToken: string; where: string }>;
}

export type NetworkSideOutcome =
  { refused: string; at: 'create' | 'run' } | { output: string; exitCode: number | null; decisions: EgressDecision[]; caKeySha256?: string[] };

/** A job running in a sibling workspace (see ProbeHost.startSibling). */
export interface SiblingJob {
  workspaceId: string;
  /** True once a line starting with `prefix` shows in the job's output; false at the deadline or when the job ended without it. */
  waitForLine(prefix: string, timeoutMs: number): Promise<boolean>;
  /** Cancels the job if it still runs, destroys the sibling workspace, and returns the job's facts. Idempotent. */
  finish(): Promise<JobFacts>;
}

/** How a host-side act ended: `refused` is the EngineError code (or the first words of a foreign error), with its category. */
export type HostActOutcome = { ok: true } | { ok: false; refused: string; category: string };

/** What a host-side export left on the host's disk: apparent size and allocated blocks (bytes). */
export interface LandedBytes {
  apparentBytes: number;
  allocatedBytes: number;
}

export type SideWorkspaceOutcome = { refused: string; at: 'create' | 'run' } | { output: string; exitCode: number | null };

/** One prepared attempt: what to run inside, and how the host watches it. */
export interface Attempt<H> {
  argv: string[];
  /** Extra job environment (names are recorded by the engine, values are not). */
  env?: Record<string, string>;
  /** Runs on the host while the job runs; stops when `signal` aborts. */
  watch?(signal: AbortSignal): Promise<void>;
  /** Host-side observations once the job has ended. */
  observe(job: JobFacts): Promise<H>;
}

export interface Scenario<H = unknown> {
  id: string;
  title: string;
  /** What the job tries, in one sentence. */
  attempts: string;
  /** Limits the provider must claim to enforce; otherwise the scenario is skipped with the reason. */
  requires: LimitName[];
  /**
   * Isolation layers (ProviderCapabilities.layers, e.g. `landlock`) the
   * scenario tests itself: on a provider that does not declare one, the
   * scenario does not apply and is skipped with the reason.
   */
  requiresLayers?: string[];
  /** Provider features (ProviderCapabilities.features) the scenario tests; skipped with the reason without them. */
  requiresFeatures?: ProviderFeature[];
  prepare(host: ProbeHost): Promise<Attempt<H>>;
  judge(job: JobFacts, host: H): Judgement;
}

/** The outcome of one scenario, as the verb reports it. */
export interface ScenarioResult {
  id: string;
  title: string;
  verdict: Verdict;
  evidence: string;
  /** The job that made the attempt (null when skipped before running). */
  jobId: string | null;
  /** A short excerpt of the job's output, kept for escapes. */
  excerpt: string | null;
  durationMs: number;
}

/**
 * The attempt never really ran (python3 or the tool missing, the job killed
 * by the engine): nothing can be concluded, so the verdict is `skipped`.
 */
export function notAttempted(job: JobFacts, marker: string): Judgement | null {
  if (job.exitCode === 127) return { verdict: 'skipped', evidence: 'the attempt could not run: a tool it needs is missing in the workspace (exit 127)' };
  if (job.status === 'timeout' || job.status === 'cancelled') return { verdict: 'skipped', evidence: `the attempt did not finish (${job.status})` };
  if (job.status === 'infrastructure_failure') return { verdict: 'skipped', evidence: 'the engine failed to run the attempt' };
  if (marker !== '' && !job.output.includes(marker))
    return { verdict: 'skipped', evidence: `the attempt did not report (no '${marker}' line; exit ${job.exitCode ?? job.status})` };
  return null;
}

/** Lines of the output that start with `prefix`, the prefix removed. */
export function linesStartingWith(output: string, prefix: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}
