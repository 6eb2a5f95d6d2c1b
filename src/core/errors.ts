import type { NextAction } from './next-action.js';
import { CATEGORIES, EXIT_CODES, RESULT_STATUSES, categoryOfStatus, type Category, type ResultStatus } from './status.js';

/**
 * Stable error codes. Code branches on `.code`, never on `.message`.
 * Each code belongs to exactly one category (and so one exit code).
 */
export type EngineErrorCode =
  | 'BAD_ARGUMENT'
  | 'BAD_ID'
  | 'BAD_PATH'
  | 'BAD_BUDGET'
  | 'BAD_MANIFEST'
  | 'MANIFEST_CHANGED'
  | 'UNKNOWN_PROVIDER'
  | 'UNKNOWN_VERB'
  | 'WORKSPACE_NOT_FOUND'
  | 'WORKSPACE_EXISTS'
  | 'WORKSPACE_DESTROYED'
  | 'JOB_NOT_FOUND'
  | 'SUBSCRIPTION_NOT_FOUND'
  | 'EVENT_NOT_FOUND'
  | 'ILLEGAL_TRANSITION'
  | 'FILE_NOT_FOUND'
  | 'NOT_A_REGULAR_FILE'
  | 'DESTINATION_EXISTS'
  | 'WOULD_DISCARD'
  | 'DIGEST_MISMATCH'
  | 'WORKSPACE_BUSY'
  | 'WORKSPACE_EXPIRED'
  | 'JOB_IDS_EXHAUSTED'
  | 'STORE_UNAVAILABLE'
  | 'STORE_SCHEMA_NEWER'
  | 'PROVIDER_UNAVAILABLE'
  | 'HOST_NO_SPACE'
  | 'PORT_IN_USE'
  | 'SERVE_UNAVAILABLE'
  | 'CHECKPOINT_NOT_FOUND'
  | 'OUTPUT_NOT_FOUND'
  | 'CHECKPOINT_CONSUMED'
  | 'CHECKPOINT_INVALID'
  | 'ALREADY_SETTLED'
  | 'ALREADY_SEALED'
  | 'PARENT_MOVED'
  | 'SETTLE_CONFLICT'
  | 'REVIEW_DENIED'
  | 'POLICY_DENIED'
  | 'PROVIDER_FAILURE'
  | 'INTERNAL';

const CODE_CATEGORY: Readonly<Record<EngineErrorCode, Category>> = Object.freeze({
  BAD_ARGUMENT: 'user_error',
  BAD_ID: 'user_error',
  BAD_PATH: 'user_error',
  BAD_BUDGET: 'user_error',
  /** A headspace.yml refused before anything happened, naming the key path and line (#17). */
  BAD_MANIFEST: 'user_error',
  /** The manifest or an input changed since prepare; prepare again with recreate (#17). */
  MANIFEST_CHANGED: 'user_error',
  UNKNOWN_PROVIDER: 'user_error',
  UNKNOWN_VERB: 'user_error',
  WORKSPACE_NOT_FOUND: 'user_error',
  WORKSPACE_EXISTS: 'user_error',
  WORKSPACE_DESTROYED: 'user_error',
  JOB_NOT_FOUND: 'user_error',
  /** No event subscription of that id (#15). */
  SUBSCRIPTION_NOT_FOUND: 'user_error',
  /** An ack or requeue named an event its subscription never received; nothing was changed (#15). */
  EVENT_NOT_FOUND: 'user_error',
  ILLEGAL_TRANSITION: 'user_error',
  FILE_NOT_FOUND: 'user_error',
  NOT_A_REGULAR_FILE: 'user_error',
  DESTINATION_EXISTS: 'user_error',
  /**
   * destroy refused, removing nothing: it would discard work not saved elsewhere (declared artifacts never
   * exported, sealed outputs not settled). A state conflict the caller resolves (export, settle, or force), like
   * DESTINATION_EXISTS: user_error, exit 1, the same for both kinds so a program branches on one code.
   */
  WOULD_DISCARD: 'user_error',
  DIGEST_MISMATCH: 'user_error',
  WORKSPACE_BUSY: 'environment_error',
  /** Past its TTL: it takes no new job; gc destroys it (#12 item 7). */
  WORKSPACE_EXPIRED: 'environment_error',
  JOB_IDS_EXHAUSTED: 'environment_error',
  STORE_UNAVAILABLE: 'environment_error',
  STORE_SCHEMA_NEWER: 'environment_error',
  PROVIDER_UNAVAILABLE: 'environment_error',
  /** The host filesystem an export writes to has too little free space (#10 item 5). */
  HOST_NO_SPACE: 'environment_error',
  /** A server (`ui`, `mcp --http`) cannot listen: another process holds the port. The host's state, not a bad flag. */
  PORT_IN_USE: 'environment_error',
  /** `headspace serve` (#20): its socket cannot be made or reached safely here (not this user's, path too long, another server), or HEADSPACE_SERVE=require found none. */
  SERVE_UNAVAILABLE: 'environment_error',
  /** Snapshots (#14): a checkpoint or output id this store does not hold for the workspace. */
  CHECKPOINT_NOT_FOUND: 'user_error',
  OUTPUT_NOT_FOUND: 'user_error',
  /** restore --consume made it single-use and it was used. */
  CHECKPOINT_CONSUMED: 'environment_error',
  /** Its data is gone, does not verify, or it was never finished: never restored. */
  CHECKPOINT_INVALID: 'environment_error',
  /** An output settles exactly once; the message names the first decision. */
  ALREADY_SETTLED: 'environment_error',
  /** A fork holds an unsettled output and changed since it was sealed: settle (or release) that one before sealing again, so no output is left orphaned. */
  ALREADY_SEALED: 'environment_error',
  /** select needs the parent unchanged since the fork baseline; apply is the way onto a moved parent. */
  PARENT_MOVED: 'environment_error',
  /** apply: the parent and the output changed the same paths (named); nothing was consumed. */
  SETTLE_CONFLICT: 'environment_error',
  /** The merge gate's reviewers denied the output (paths and rule named); nothing was consumed. */
  REVIEW_DENIED: 'policy_denied',
  POLICY_DENIED: 'policy_denied',
  PROVIDER_FAILURE: 'infrastructure_failure',
  INTERNAL: 'infrastructure_failure',
});

export function categoryOfCode(code: EngineErrorCode): Category {
  return CODE_CATEGORY[code];
}

/**
 * A verb's input named in an error's text, for each face to spell: `{{quorum}}`,
 * or `{{strategy=quorum}}` for a value given to it. Core names no flag, yet a
 * batch refusal once told a CLI user about "the quorum strategy" and "a
 * quorum" when what they typed was `--strategy quorum --quorum K`: an error
 * built with `inputsOf: VERB` keeps its text with these marks, the library
 * and MCP read it with the inputs' field names (the error's message and
 * hint), and the CLI spells them as the flags that fill them
 * (cli/render-error.ts). A field inside an object input is named by its path,
 * `{{budget.memoryBytes}}`: the CLI fills it from a flag of its own
 * (--memory-bytes). Re-exported by verb-table/command-words.ts, beside the verbs' own words.
 */
export function inputRef(key: string, value?: string | number): string {
  return `{{${key}${value === undefined ? '' : `=${value}`}}}`;
}

/** How a face writes an input (and the value given to it). */
export type SpellInput = (key: string, value: string | undefined) => string;

/** The library's and MCP's spelling: the field's name, a value as JSON gives it (`quorum: 2`, `strategy: "quorum"`). */
export const fieldSpelling: SpellInput = (key, value) =>
  value === undefined ? key : `${key}: ${/^-?\d+(\.\d+)?$/.test(value) ? value : JSON.stringify(value)}`;

/** Replaces each input mark in text by its face's spelling. */
export function spellInputs(text: string, spell: SpellInput): string {
  return text.replace(/\{\{([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*)(?:=([^}]*))?\}\}/g, (_m, key: string, value: string | undefined) =>
    spell(key, value),
  );
}

export interface EngineErrorOptions {
  /** One line telling the caller what to do next, in words of no face (no flag, no command line). */
  hint?: string;
  /** The call the hint suggests, as data; each face renders it in its own syntax after the hint. */
  action?: NextAction;
  cause?: unknown;
  /**
   * The verb whose inputs the message and hint name with `{{key}}` marks (command-words.ts inputRef): the error's
   * message and hint spell them as field names (the library's and MCP's words); the CLI spells them as its flags.
   */
  inputsOf?: string;
}

/** Every failure the engine reports on purpose. Anything else is our bug. */
export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly hint: string | undefined;
  readonly action: NextAction | undefined;
  /** The message and hint with their input marks, and the verb they belong to, for a face that spells inputs its own way. */
  readonly marked: { verb: string; message: string; hint: string | undefined } | undefined;
  constructor(code: EngineErrorCode, message: string, options: EngineErrorOptions = {}) {
    const spell = (text: string) => (options.inputsOf === undefined ? text : spellInputs(text, fieldSpelling));
    super(spell(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.hint = options.hint === undefined ? undefined : spell(options.hint);
    this.action = options.action;
    this.marked = options.inputsOf === undefined ? undefined : { verb: options.inputsOf, message, hint: options.hint };
  }
  get category(): Category {
    return categoryOfCode(this.code);
  }
}

/** Raised by a provider when the backend itself broke (exit 7), never for a failing command. */
export class ProviderError extends EngineError {
  constructor(message: string, options: EngineErrorOptions = {}) {
    super('PROVIDER_FAILURE', message, options);
    this.name = 'ProviderError';
  }
}

/**
 * The provider lost the workspace itself, not just the job: what held its
 * files is gone (a swarm node went down, #22). A run that meets it ends the
 * job infrastructure_failure and moves the workspace to `failed` with
 * `reason`, both in the job's one terminal commit; nothing is re-run.
 */
export class WorkspaceLostError extends ProviderError {
  readonly reason: string;
  constructor(message: string, reason: string, options: EngineErrorOptions = {}) {
    super(message, options);
    this.name = 'WorkspaceLostError';
    this.reason = reason;
  }
}

export function isEngineError(value: unknown): value is EngineError {
  return value instanceof EngineError;
}

/** Turns anything thrown into an EngineError; an unknown throw is an INTERNAL fault (our bug). */
export function toEngineError(value: unknown): EngineError {
  if (value instanceof EngineError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new EngineError('INTERNAL', `internal error: ${message}`, {
    hint: 'this is a headspace bug; report it with the call you made and what doctor says',
    action: { verb: 'doctor', args: {} },
    cause: value,
  });
}

/**
 * The exit code of a category (`computation_failed` → 6) or of a result
 * status (`failure` → 6): a library caller holds one or the other (#12 item
 * 15). Anything else is refused rather than mapped to a guess.
 */
export function exitCodeOf(statusOrCategory: Category | ResultStatus): number {
  if (Object.hasOwn(EXIT_CODES, statusOrCategory)) return EXIT_CODES[statusOrCategory as Category];
  if ((RESULT_STATUSES as readonly string[]).includes(statusOrCategory)) return EXIT_CODES[categoryOfStatus(statusOrCategory as ResultStatus)];
  throw new EngineError('BAD_ARGUMENT', `exitCodeOf takes a result status or a category, not ${JSON.stringify(String(statusOrCategory).slice(0, 40))}`, {
    hint: `statuses: ${RESULT_STATUSES.join(', ')}; categories: ${CATEGORIES.join(', ')}`,
  });
}
