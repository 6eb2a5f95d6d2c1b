import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from './clock.js';
import { EngineError } from './errors.js';
import type { EventBus } from './events.js';
import type { IdGenerator } from './ids.js';
import type { Provider } from './provider.js';
import { FORMAT_CHAR_PATTERN } from './result/visible-text.js';
import type { SqliteStore } from './store/sqlite-store.js';

/** Builds a provider on demand, so a verb pays only for the backend it uses. */
export type ProviderFactory = (context: { home: string; clock: Clock }) => Provider | Promise<Provider>;

/** What every verb receives: the engine's parts, no module-level state. */
export interface EngineContext {
  home: string;
  version: string;
  clock: Clock;
  ids: IdGenerator;
  events: EventBus;
  defaultProvider: string;
  providerNames(): string[];
  store(): SqliteStore;
  provider(name: string): Promise<Provider>;
  /** Where a job's captured output is kept. */
  logPath(jobId: string): string;
  /**
   * This engine call's id: every result carries it (provenance.trace_id) and
   * every journal row the call writes records it, so one call's rows can be
   * told apart from another's (#12 item 7). Verbs a verb runs inside itself
   * share it.
   */
  traceId: string;
}

export function defaultHome(): string {
  return join(homedir(), '.headspace');
}

export function unknownProvider(name: string, known: string[]): EngineError {
  return new EngineError('UNKNOWN_PROVIDER', `unknown provider '${name.length > 40 ? `${name.slice(0, 40)}…` : name}'`, {
    hint: `choose one of: ${known.join(', ')}`,
  });
}

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellQuote(word: string): string {
  if (word === '') return "''";
  if (/^[A-Za-z0-9_\-+=.,/:@%^]+$/.test(word)) return word;
  // Controls and bidi characters (a job names its files) go in $'…' as escapes, so a
  // pasted command stays one visible, correct line (#10 item 11).
  if (SHELL_UNSAFE.test(word)) return `$'${word.replace(SHELL_ESCAPED, shellEscape)}'`;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One character inside $'…': bash reads \\xHH as a raw byte, so anything past ASCII goes as \\uHHHH (its UTF-8). */
function shellEscape(ch: string): string {
  const named: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' };
  const code = ch.charCodeAt(0);
  return named[ch] ?? (code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

const SHELL_UNSAFE = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${FORMAT_CHAR_PATTERN.source.slice(1, -1)}]`);
const SHELL_ESCAPED = new RegExp(`[\\\\'\\x00-\\x1f\\x7f-\\x9f${FORMAT_CHAR_PATTERN.source.slice(1, -1)}]`, 'g');
