/**
 * Finding a job's secret values, in every form (secret-value-forms.ts), in
 * the latin1 text of what its tunnels hand back. Made once per job's list
 * of secrets (every tunnel of a job shares the list) and cached by it: a
 * job opening thousands of tunnels must not have the engine build it
 * thousands of times (red team: 16 secrets of 500 bytes cost 223 ms a
 * tunnel that way).
 *
 * How it finds them: one regular expression over each form's first
 * PREFIX_CHARS characters (the forms' beginnings factored into a trie, so
 * the engine decides each next character once) proposes where a form may
 * begin; the forms beginning with that character, longest first, are then
 * compared there in full. The expression stays small however long the
 * values (a pattern of whole 8 KiB values, nested once per character,
 * overflowed the stack: red team), and a text is scanned once, not once
 * per form.
 */
import type { JobSecret } from './egress-secrets.js';
import { secretValueFormsWithLeast } from './secret-value-forms.js';

export interface MaskedValue {
  name: string;
  /** One form of the value's UTF-8 bytes, as latin1 text: how streams are held here. */
  bytes: string;
  placeholder: string;
  /** `[hs-redacted NAME]***…` cut to the form's length: a body keeps its length. */
  mask: string;
  /**
   * How many of this form's first characters at a stream's end are masked (and taken for a probe, see
   * partialValueAtEnd): as many as encode 4 of the value's bytes (secret-value-forms.ts PARTIAL_VALUE_BYTES: 4
   * in the value as is, 8 in hex, 6 in base64, an escape's whole length), or all but the last of a short form.
   * (At 4 hex characters, 2 bytes, a job found the start of a 40-character value in 2,752 requests: red team.)
   */
  partialLeast: number;
}

export interface ValueSet {
  /** Longest first: of two forms beginning at one place, the longer covers the shorter. */
  values: readonly MaskedValue[];
  longest: number;
  /** By the char code of their first character, longest first. */
  byFirst: ReadonlyMap<number, readonly MaskedValue[]>;
  /** Proposes where a form may begin; null when there is none. */
  prefilter: RegExp | null;
}

/** How much of each form the prefilter matches: enough to be rare in unrelated text, short enough to keep it small. */
const PREFIX_CHARS = 8;

const made = new WeakMap<readonly JobSecret[], ValueSet>();

export function valueSetOf(secrets: readonly JobSecret[]): ValueSet {
  let set = made.get(secrets);
  if (set === undefined) {
    set = buildValueSet(secrets);
    made.set(secrets, set);
  }
  return set;
}

function buildValueSet(secrets: readonly JobSecret[]): ValueSet {
  const seen = new Set<string>();
  const values: MaskedValue[] = [];
  for (const s of secrets)
    for (const { text: bytes, least } of secretValueFormsWithLeast(s.value)) {
      // The same form of two secrets' (equal) values: the first secret's name and placeholder stand for both.
      if (seen.has(bytes)) continue;
      seen.add(bytes);
      values.push({
        name: s.name,
        bytes,
        placeholder: s.placeholder,
        mask: `[hs-redacted ${s.name}]${'*'.repeat(bytes.length)}`.slice(0, bytes.length),
        partialLeast: least,
      });
    }
  values.sort((a, b) => b.bytes.length - a.bytes.length);
  const byFirst = new Map<number, MaskedValue[]>();
  for (const v of values) {
    const first = v.bytes.charCodeAt(0);
    byFirst.set(first, [...(byFirst.get(first) ?? []), v]);
  }
  const prefixes = [...new Set(values.map((v) => v.bytes.slice(0, PREFIX_CHARS)))];
  return {
    values,
    longest: values[0]?.bytes.length ?? 0,
    byFirst,
    prefilter: prefixes.length === 0 ? null : new RegExp(triePattern(prefixes), 'g'),
  };
}

interface TrieNode {
  next: Map<string, TrieNode>;
  end: boolean;
}

/**
 * The texts as one pattern with their common beginnings factored out (`ab(?:c|d)` for `abc` and `abd`); where
 * one ends inside a longer one the longer is tried first (`ab(?:cd)?`). Every character but a letter or digit
 * is written \xHH (the texts are latin1: each character one byte). Nested once per character of the longest
 * text: callers keep the texts short (PREFIX_CHARS).
 */
function triePattern(texts: readonly string[]): string {
  const root: TrieNode = { next: new Map(), end: false };
  for (const text of texts) {
    let node = root;
    for (const c of text) {
      let child = node.next.get(c);
      if (child === undefined) node.next.set(c, (child = { next: new Map(), end: false }));
      node = child;
    }
    node.end = true;
  }
  const literal = (c: string) => (/[A-Za-z0-9]/.test(c) ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const emit = (node: TrieNode): string => {
    const branches = [...node.next].map(([c, child]) => literal(c) + emit(child));
    if (branches.length === 0) return '';
    const body = branches.length === 1 ? branches[0]! : `(?:${branches.join('|')})`;
    return node.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

/**
 * Where forms occur in `text`: at every place where one begins, the longest that does (it covers any shorter
 * one there). Overlapping occurrences are all found: each search starts one past the last proposal.
 */
export function occurrences(text: string, set: ValueSet): Array<{ at: number; value: MaskedValue }> {
  const found: Array<{ at: number; value: MaskedValue }> = [];
  const pattern = set.prefilter;
  if (pattern === null) return found;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const at = m.index;
    const whole = set.byFirst.get(text.charCodeAt(at))?.find((v) => text.startsWith(v.bytes, at));
    if (whole !== undefined) found.push({ at, value: whole });
    pattern.lastIndex = at + 1;
  }
  return found;
}

/** Is `text` from `at` to its end a proper beginning of a form (one that may still be under way)? */
function beginsAFormAt(text: string, at: number, set: ValueSet, least: (v: MaskedValue) => number): boolean {
  const rest = text.length - at;
  for (const v of set.byFirst.get(text.charCodeAt(at)) ?? []) {
    if (rest >= v.bytes.length || rest < least(v)) continue;
    if (v.bytes.startsWith(text.slice(at))) return true;
  }
  return false;
}

/**
 * The first place in the last (longest form − 1) characters of `text` from which the rest is a proper
 * beginning of a form, at least `least(form)` characters of it; else the text's length. Only where the
 * prefilter proposes one can a beginning of PREFIX_CHARS or more be, so the window is not walked character by
 * character (16 secrets of 8 KiB make it ~50,000 characters long); the last PREFIX_CHARS − 1 places are.
 */
function firstBeginning(text: string, set: ValueSet, least: (v: MaskedValue) => number): number {
  const start = Math.max(0, text.length - (set.longest - 1));
  const tail = Math.max(start, text.length - (PREFIX_CHARS - 1));
  const pattern = set.prefilter;
  if (pattern === null) return text.length;
  pattern.lastIndex = start;
  for (let m = pattern.exec(text); m !== null && m.index < tail; m = pattern.exec(text)) {
    if (beginsAFormAt(text, m.index, set, least)) return m.index;
    pattern.lastIndex = m.index + 1;
  }
  for (let i = tail; i < text.length; i++) if (beginsAFormAt(text, i, set, least)) return i;
  return text.length;
}

/**
 * How many bytes at the end of `text` could be the first part of a form (a proper prefix of one, at least its
 * partialLeast characters): what must be masked where bytes go without what follows them, since the rest may
 * come in bytes this masker never sees. The job may have chosen those bytes (an echo), so masking them tells it
 * they begin a value: the callers take one as a probe of the redactor and cut the job's network (one answer,
 * never the one-character-at-a-time walk to the whole value the red team made of it).
 */
export function partialValueAtEnd(text: string, set: ValueSet): number {
  return text.length - firstBeginning(text, set, (v) => v.partialLeast);
}
