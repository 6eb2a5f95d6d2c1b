/**
 * Bounds a result's structuredContent (#12 item 20: one `logs` call returned
 * 10.3 MB of it while its markdown stayed at 8 KiB). The JSON rendering is
 * kept whole when it fits; otherwise, in this order, until it fits:
 *  1. evidence excerpts are re-selected smaller (the same line scoring and
 *     truncation marker as everywhere; the marker names the evidence's
 *     retrieval, which over MCP is a logs tool call), and marked truncated;
 *  2. every other long string, largest first, is clipped and ends with the
 *     same `…[truncated: N of M bytes shown]` marker;
 *  3. trailing items of the longest lists are left out (an ls of thousands).
 * A warning says the document was shrunk, and the caller flags it in _meta.
 * It works on the parsed value and re-serialises, so the result is always
 * valid JSON; it never removes a field or changes a type, so the output
 * schema (result-schema.ts) still validates.
 *
 * Why a budget of its own, larger than the markdown's: structuredContent is
 * read by programs, which want whole fields and ids where they can get them,
 * and JSON spends bytes on keys, quoting and escapes (about 1.5× the same
 * facts in markdown). It is still bounded, because many clients hand it to
 * the model whole.
 */
import { formatTruncationMarker, selectExcerpt } from '../core/output/select-excerpt.js';
import { clipUtf8, utf8Length } from '../core/result/sanitize-text.js';

export const DEFAULT_MAX_STRUCTURED_BYTES = 64 * 1024;
/** Below this a bound cannot hold the nine sections, their ids and the warning. */
export const MIN_MAX_STRUCTURED_BYTES = 4096;
/** Shrunk strings keep at least this much (marker included). */
const MIN_EXCERPT_BYTES = 200;
const MIN_FIELD_BYTES = 120;
/** Strings shorter than this are never clipped: ids, enums, digests, times. */
const CLIPPABLE_BYTES = 160;
const LISTS = ['key_findings', 'evidence', 'attention', 'warnings', 'artifacts'] as const;

export interface BoundedStructured {
  value: Record<string, unknown>;
  /** Set when anything was shrunk: the UTF-8 size of the whole JSON rendering. */
  originalBytes?: number;
}

interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  excerptOf?: Record<string, unknown>;
}

const jsonBytes = (value: unknown) => utf8Length(JSON.stringify(value));

export function boundStructured(document: Record<string, unknown>, maxBytes: number): BoundedStructured {
  const limit = Math.max(MIN_MAX_STRUCTURED_BYTES, Math.floor(maxBytes));
  const originalBytes = jsonBytes(document);
  if (originalBytes <= limit) return { value: document };
  const value = structuredClone(document);
  const warning = `structuredContent was shrunk to ${limit} bytes (it was ${originalBytes}): long fields end with a truncation marker; an excerpt's marker names the logs call that pages through the output`;
  const budget = limit - jsonBytes(warning) - 2;
  let size = jsonBytes(value);

  const replace = (slot: Slot, next: unknown) => {
    const holder = slot.holder as Record<string | number, unknown>;
    size += jsonBytes(next) - jsonBytes(holder[slot.key]);
    holder[slot.key] = next;
  };
  const current = (slot: Slot) => String((slot.holder as Record<string | number, unknown>)[slot.key]);

  const { excerpts, others } = collectSlots(value);
  shrinkLargestFirst(excerpts, MIN_EXCERPT_BYTES, (slot, target) => {
    const text = current(slot);
    const retrieval = typeof slot.excerptOf?.retrieval === 'string' ? slot.excerptOf.retrieval : undefined;
    let picked = selectExcerpt(text, { budgetBytes: target, ...(retrieval === undefined ? {} : { retrieval }) }).excerpt;
    // JSON escapes (a newline costs two bytes) can leave it above target: shrink once more.
    if (jsonBytes(picked) > target + 2)
      picked = selectExcerpt(text, {
        budgetBytes: Math.max(MIN_EXCERPT_BYTES, 2 * target - jsonBytes(picked)),
        ...(retrieval === undefined ? {} : { retrieval }),
      }).excerpt;
    replace(slot, picked);
    if (slot.excerptOf) slot.excerptOf.truncated = true;
  });
  shrinkLargestFirst(others, MIN_FIELD_BYTES, (slot, target) => {
    const text = current(slot);
    const total = utf8Length(text);
    let keep = Math.max(0, target - 60);
    let clipped = `${clipUtf8(text, keep)} ${formatTruncationMarker(keep, total)}`;
    while (jsonBytes(clipped) > target && keep > 0) {
      keep = Math.max(0, keep - (jsonBytes(clipped) - target));
      clipped = `${clipUtf8(text, keep)} ${formatTruncationMarker(utf8Length(clipUtf8(text, keep)), total)}`;
    }
    replace(slot, clipped);
  });

  function shrinkLargestFirst(slots: Slot[], floor: number, shrink: (slot: Slot, target: number) => void): void {
    const sized = slots.map((slot) => ({ slot, bytes: jsonBytes(current(slot)) })).filter((s) => s.bytes > floor);
    sized.sort((a, b) => b.bytes - a.bytes);
    for (const { slot, bytes } of sized) {
      if (size <= budget) return;
      shrink(slot, Math.max(floor, bytes - (size - budget)));
    }
  }

  // 3. Still too big: many items rather than long ones. Drop from the end of the longest list.
  const dropped: string[] = [];
  // Room for the warning's "; left out: N trailing item(s) of …" (at most one clause per list).
  const listBudget = budget - 50 * LISTS.length;
  while (size > budget) {
    const longest = LISTS.map((name) => ({ name, list: value[name] }))
      .filter((l): l is { name: (typeof LISTS)[number]; list: unknown[] } => Array.isArray(l.list) && l.list.length > 1)
      .sort((a, b) => jsonBytes(b.list) - jsonBytes(a.list))[0];
    if (!longest || size <= listBudget) break;
    let removed = 0;
    while (size > listBudget && longest.list.length > 1) {
      size -= jsonBytes(longest.list.pop()) + 1;
      removed++;
    }
    dropped.push(`${removed} trailing item(s) of ${longest.name}`);
  }
  const warnings = Array.isArray(value.warnings) ? value.warnings : [];
  warnings.push(dropped.length ? `${warning}; left out: ${dropped.join(', ')}` : warning);
  value.warnings = warnings;
  return { value, originalBytes };
}

/** Every clippable string: evidence excerpts apart, then all the others (object keys are never touched). */
function collectSlots(value: Record<string, unknown>): { excerpts: Slot[]; others: Slot[] } {
  const excerpts: Slot[] = [];
  const others: Slot[] = [];
  const evidence = Array.isArray(value.evidence) ? (value.evidence as unknown[]) : [];
  for (const entry of evidence) {
    if (entry !== null && typeof entry === 'object' && typeof (entry as Record<string, unknown>).excerpt === 'string') {
      excerpts.push({ holder: entry as Record<string, unknown>, key: 'excerpt', excerptOf: entry as Record<string, unknown> });
    }
  }
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number, node: unknown) => {
    if (typeof node === 'string') {
      const isExcerpt = !Array.isArray(holder) && key === 'excerpt' && evidence.includes(holder);
      if (!isExcerpt && key !== 'status' && utf8Length(node) >= CLIPPABLE_BYTES) others.push({ holder, key });
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => visit(node, i, item));
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) visit(node as Record<string, unknown>, k, v);
    }
  };
  for (const [k, v] of Object.entries(value)) visit(value, k, v);
  return { excerpts, others };
}
