/**
 * The one supported library surface. Explicit named exports only; a test
 * pins the list, so removing one is a visible, deliberate change.
 */
import { EngineError } from '../core/errors.js';
import { defaultHome } from '../core/context.js';
import { createEngine, type Engine } from '../core/engine.js';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import { PROVIDERS, defaultProviderName } from '../providers/registry.js';
import type { ProviderFactory } from '../core/context.js';
import { packageVersion } from '../core/version.js';

export interface HeadspaceOptions {
  /** State directory; default $HEADSPACE_HOME, else ~/.headspace. */
  home?: string;
  /** Provider used by create when none is named: native on Linux, else fake. */
  defaultProvider?: string;
  /** Extra or replacement providers (e.g. a fake with a virtual clock). */
  providers?: Record<string, ProviderFactory>;
  clock?: Clock;
  ids?: IdGenerator;
  /** Which face this engine serves, recorded on every journalled intent (the dashboard passes 'ui', #21). */
  actor?: string;
}

/** Builds an engine wired with the registered providers. */
/** Every option createHeadspace takes: a misspelt one (`defaultProvder`) is refused, not silently ignored (#12 item 15). */
const HEADSPACE_OPTION_KEYS: Readonly<Record<keyof HeadspaceOptions, true>> = {
  home: true,
  defaultProvider: true,
  providers: true,
  clock: true,
  ids: true,
  actor: true,
};

export function createHeadspace(options: HeadspaceOptions = {}): Engine {
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(HEADSPACE_OPTION_KEYS, key));
  if (unknown.length > 0) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `createHeadspace does not take ${unknown
        .slice(0, 5)
        .map((k) => `'${k.slice(0, 40)}'`)
        .join(', ')}`,
      {
        hint: `its options are: ${Object.keys(HEADSPACE_OPTION_KEYS).join(', ')}`,
      },
    );
  }
  // The public engine has no way to a provider (#11): everything goes through the verbs.
  const {
    provider: _provider,
    superviseJob: _supervise,
    ...engine
  } = createEngine({
    home: options.home ?? process.env.HEADSPACE_HOME ?? defaultHome(),
    providers: { ...PROVIDERS, ...(options.providers ?? {}) },
    defaultProvider: options.defaultProvider ?? defaultProviderName(),
    // A provider the caller replaced exists only in this process: a detached run's supervisor could not rebuild it.
    detachableProviders: Object.keys(PROVIDERS).filter((name) => !Object.hasOwn(options.providers ?? {}, name)),
    version: packageVersion(),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.actor ? { actor: options.actor } : {}),
  });
  return engine;
}

export { createEngine } from '../core/engine.js';
export type { Engine, EngineOptions } from '../core/engine.js';
export { createFakeProvider } from '../providers/fake/fake-provider.js';
export type { FakeProviderOptions } from '../providers/fake/fake-provider.js';
export { createVirtualClock, systemClock } from '../core/clock.js';
export type { Clock, VirtualClock } from '../core/clock.js';
export { sequentialIds } from '../core/ids.js';
export { EngineError, ProviderError, exitCodeOf } from '../core/errors.js';
export type { EngineErrorCode } from '../core/errors.js';
export { EXIT_CODES, categoryOfStatus } from '../core/status.js';
export type { Category, ResultStatus } from '../core/status.js';
export { renderMarkdown } from '../core/result/render-markdown.js';
export { renderJson } from '../core/result/render-json.js';
export { RESULT_SCHEMA_VERSION, SECTION_ORDER } from '../core/result/result-package.js';
export type { ResultPackage, Evidence, ArtifactEntry, Provenance, ResourceUsage, AttentionItem } from '../core/result/result-package.js';
export type { NextAction, RenderAction } from '../core/next-action.js';
export { defaultPolicy, DEFAULT_BUDGET } from '../core/policy/policy.js';
export type { Policy, Budget } from '../core/policy/policy.js';
export type { Provider, ProviderCapabilities, ProbeResult, JobOutcome, RunRequest } from '../core/provider.js';
// Every verb's input, so a caller can type what it passes (#12 item 15); unknown keys are refused at run time too.
export type { CreateInput } from '../core/verbs/create.js';
export type { RunInput } from '../core/verbs/run.js';
export type { StopInput } from '../core/verbs/stop.js';
export type { DestroyInput } from '../core/verbs/destroy.js';
export type { LogsInput } from '../core/verbs/logs.js';
export type { InspectInput, LogsDump } from '../core/verbs/inspect.js';
export type { LsInput } from '../core/verbs/ls.js';
export type { DoctorInput } from '../core/verbs/doctor.js';
export type { ProbeInput } from '../core/verbs/probe.js';
export type { PutInput } from '../core/verbs/put.js';
export type { DeclareInput, Declaration } from '../core/verbs/declare.js';
export type { ExportInput } from '../core/verbs/export.js';
export type { LsFilesInput } from '../core/verbs/ls-files.js';
export type { StatusInput } from '../core/verbs/status.js';
export type { PlanInput } from '../core/verbs/plan.js';
export type { WatchInput, WatchSample } from '../core/verbs/watch.js';
export type { PrepareInput } from '../core/verbs/prepare.js';
export type { ReadFileInput, FileBytes } from '../core/verbs/read-file.js';
// Events (#15): each sub-verb's input, what an event is, the subscription iterator's items, and a webhook receiver's check.
export type { EventsSubscribeInput, EventsUnsubscribeInput } from '../core/verbs/events-subscribe.js';
export type { EventsClaimInput } from '../core/verbs/events-claim.js';
export type { EventsAckInput, EventsRequeueInput, EventsPruneInput } from '../core/verbs/events-settle.js';
export type { EventsFollowInput } from '../core/verbs/events-follow.js';
export type { EventsDeliverInput } from '../core/verbs/events-deliver.js';
export type { JobEvent, EventName } from '../core/store/event-queue.js';
export type { ClaimedEvent, SubscriptionIteratorInput } from '../core/events/subscription-iterator.js';
export { verifyWebhook } from '../core/events/webhook.js';
export type { WaitInput } from '../core/verbs/wait.js';
// Batches (#16): the batch's input and one spec job.
export type { BatchInput } from '../core/verbs/batch.js';
export type { BatchLsInput } from '../core/verbs/batch-ls.js';
export type { BatchJobSpec } from '../core/batch/batch-spec.js';
export type { CheckpointInput, RestoreInput } from '../core/verbs/checkpoint.js';
export type { DiffInput } from '../core/verbs/diff.js';
export type { ForkInput } from '../core/verbs/fork.js';
export type { SealInput } from '../core/verbs/seal.js';
export type { SettleInput } from '../core/verbs/settle.js';
export type { ReviewPolicyInput } from '../core/verbs/review-policy.js';
export type { ReceiptInput } from '../core/verbs/receipt.js';
export type { RulesInput } from '../core/verbs/rules.js';
export type { VerificationRequest, VerificationBlock, CheckResult } from '../core/verification/verification.js';
export type { JobReceipt, ReceiptEnvelope } from '../core/receipts/job-receipt.js';
// The dashboard's reads (#21): workspace facts, watch samples, the stored probe report, the batch list.
export type { WorkspaceFacts, WorkspaceFactsInput } from '../core/reads/workspace-facts.js';
export type { WatchSamples, WatchSamplesInput } from '../core/reads/watch-samples.js';
export type { StoredProbeReport } from '../core/reads/probe-reports.js';
export type { BatchSummary } from '../core/reads/batch-list.js';
