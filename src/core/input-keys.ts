/**
 * The library's inputs are plain objects from JavaScript callers, where a
 * misspelt key (`budget: { memory: 1 }`) used to be ignored silently and the
 * default applied (#12 item 15). Each verb's keys are listed here, typed as
 * `Record<keyof Input, true>` so adding a field to an input interface
 * without listing it fails the build; the engine refuses any other key,
 * naming the valid ones, as the MCP tools' strict schemas already do.
 *
 * Type-only imports: the verbs' modules still load only when first called.
 */
import { EngineError } from './errors.js';
import type { Budget } from './policy/policy.js';
import type { CreateInput } from './verbs/create.js';
import type { DeclareInput } from './verbs/declare.js';
import type { DestroyInput } from './verbs/destroy.js';
import type { DoctorInput } from './verbs/doctor.js';
import type { ExportInput } from './verbs/export.js';
import type { InspectInput } from './verbs/inspect.js';
import type { LogsInput } from './verbs/logs.js';
import type { LsFilesInput } from './verbs/ls-files.js';
import type { LsInput } from './verbs/ls.js';
import type { ProbeInput } from './verbs/probe.js';
import type { PutInput } from './verbs/put.js';
import type { RunInput } from './verbs/run.js';
import type { StopInput } from './verbs/stop.js';

type Keys<T> = Readonly<Record<keyof T, true>>;
type RunItem<K extends 'inputs' | 'declares'> = NonNullable<RunInput[K]>[number];

const BUDGET: Keys<Budget> = { memoryBytes: true, cpuLimit: true, pidsLimit: true, storageBytes: true, wallClockSeconds: true, outputBytes: true, concurrency: true };
const RUN_INPUT_ITEM: Keys<RunItem<'inputs'>> = { destination: true, hostPath: true };
const RUN_DECLARE_ITEM: Keys<RunItem<'declares'>> = { name: true, purpose: true };

export const INPUT_KEYS = {
  create: { workspaceId: true, provider: true, profile: true, network: true, hostPaths: true, budget: true, purpose: true, owner: true, ttlSeconds: true } satisfies Keys<CreateInput>,
  run: { workspaceId: true, argv: true, jobId: true, env: true, cwd: true, signal: true, canceller: true, inputs: true, declares: true } satisfies Keys<RunInput>,
  stop: { workspaceId: true, jobId: true, apply: true, graceSeconds: true, settleTimeoutMs: true } satisfies Keys<StopInput>,
  inspect: { handle: true } satisfies Keys<InspectInput>,
  logs: { jobId: true, head: true, tail: true, grep: true, lines: true, maxLines: true } satisfies Keys<LogsInput>,
  ls: { all: true } satisfies Keys<LsInput>,
  destroy: { workspaceId: true, force: true } satisfies Keys<DestroyInput>,
  doctor: { provider: true, repair: true, apply: true, verify: true } satisfies Keys<DoctorInput>,
  probe: { scenario: true, all: true, provider: true, list: true } satisfies Keys<ProbeInput>,
  put: { workspaceId: true, hostPath: true, destination: true, overwrite: true } satisfies Keys<PutInput>,
  declare: { workspaceId: true, name: true, purpose: true, remove: true } satisfies Keys<DeclareInput>,
  export: { workspaceId: true, name: true, to: true, expectSha256: true, overwrite: true, maxBytes: true, onProgress: true } satisfies Keys<ExportInput>,
  listFiles: { workspaceId: true, path: true, limit: true } satisfies Keys<LsFilesInput>,
} as const;

export type VerbWithInput = keyof typeof INPUT_KEYS;

/** Refuses (BAD_ARGUMENT) any key of a verb's input, or of its nested objects, that the verb does not take. */
export function refuseUnknownKeys(verb: VerbWithInput, input: unknown): void {
  check(verb, '', input, INPUT_KEYS[verb]);
  if (!isObject(input)) return;
  if (verb === 'create') check(verb, 'budget.', input.budget, BUDGET);
  if (verb === 'run') {
    eachItem(input.inputs, (item, i) => check(verb, `inputs[${i}].`, item, RUN_INPUT_ITEM));
    eachItem(input.declares, (item, i) => check(verb, `declares[${i}].`, item, RUN_DECLARE_ITEM));
  }
}

function check(verb: string, prefix: string, value: unknown, allowed: Readonly<Record<string, true>>): void {
  if (!isObject(value)) return; // wrong shapes are the verb's own checks to refuse
  const unknown = Object.keys(value).filter((key) => !Object.hasOwn(allowed, key));
  if (unknown.length === 0) return;
  const shown = unknown.slice(0, 5).map((k) => `'${prefix}${k.slice(0, 40)}'`).join(', ');
  throw new EngineError('BAD_ARGUMENT', `${verb} does not take ${shown}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}; nothing was done`, {
    hint: `valid keys${prefix === '' ? '' : ` of ${prefix.slice(0, -1).replace(/\[\d+\]$/, '[]')}`}: ${Object.keys(allowed).join(', ')}`,
  });
}

function eachItem(value: unknown, fn: (item: unknown, index: number) => void): void {
  if (Array.isArray(value)) value.forEach(fn);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
