/**
 * Choosing what of a whole captured log an agent sees.
 *
 * Not a head-and-tail cut: the lines that carry errors, tracebacks, failed
 * assertions, test summaries and answers are kept first (see line-scoring.ts),
 * then the last lines, then the first, then whatever else fits. Kept lines stay
 * in their original order and every run of left-out lines is shown as one gap
 * line, `… [1234 lines omitted] …`. A line repeating a shape already seen
 * REPEATS_KEPT times (line-scoring.ts) is not spent bytes on unless its
 * neighbours or its position lift it, and a gap mostly made of one shape says
 * so, budget permitting: `… [8269 lines omitted, 1653 like: warning: unused
 * variable ‘…’ [-Wunused-variable]] …`.
 *
 * The log is read as a Buffer of line offsets, never as one string: a 50 MB
 * log costs about 10 bytes per line of bookkeeping, and each line is decoded only
 * while it is scored and again if it is kept.
 */
import { isUtf8 } from 'node:buffer';
import {
  addContextScores,
  chooseUnits,
  classifyLine,
  createLineScorer,
  KIND_SCORES,
  positionScore,
  REPEAT_LIFT_MIN,
  scoreLogLines,
  type LineScorer,
} from './line-scoring.js';
import { cleanLine, clipLine, clipUtf8, needsCleaning, utf8Length } from '../result/sanitize-text.js';

/** A line longer than this is clipped with an inline `…[+N bytes]` note. */
export const LINE_CAP_BYTES = 500;
/** Budgets below this are raised to it (it always holds one gap line). */
export const MIN_EXCERPT_BUDGET = 80;
/** Only this much of a giant line is decoded: enough to score it and show LINE_CAP_BYTES. */
const DECODE_CAP_BYTES = 4096;
/** Most UTF-8 bytes of a shape quoted in a gap line. */
export const GAP_SHAPE_BYTES = 120;
/** Cost of a line that must not be kept: more than any budget chooseUnits is given here. */
const NEVER_KEPT = 0xffff_ffff;

export interface SelectExcerptOptions {
  /** Most UTF-8 bytes `excerpt` may take (gap lines and marker included); raised to MIN_EXCERPT_BUDGET. */
  budgetBytes: number;
  /**
   * Pasted into a shell, returns the whole log (`headspace inspect job-abc --logs`).
   * When given and lines or bytes were left out, the excerpt ends with a
   * truncation marker naming it, used verbatim (never re-wrapped).
   */
  retrieval?: string;
}

export interface SelectedExcerpt {
  excerpt: string;
  /** True when lines were left out or a kept line was clipped. Cleaning alone is not truncation. */
  truncated: boolean;
  /** Bytes of the raw log. */
  total_bytes: number;
  /** Lines of the raw log; a final newline ends the last line rather than starting an empty one. */
  total_lines: number;
  /** Lines of the raw log not shown (the sum of the gap lines' counts). */
  omitted_lines: number;
}

/** How many of a gap's lines share one shape, and that shape (see lineShape). */
export interface GapLike {
  count: number;
  shape: string;
}

/**
 * The gap line standing for `count` left-out lines (or list items); with
 * `like`, it also says how many of them share a shape and quotes the shape,
 * clipped to GAP_SHAPE_BYTES: `… [8269 lines omitted, 1653 like: warning: …] …`.
 */
export function formatGapMarker(count: number, unit: 'line' | 'item' = 'line', like?: GapLike): string {
  const shape = like === undefined ? '' : utf8Length(like.shape) > GAP_SHAPE_BYTES ? `${clipUtf8(like.shape, GAP_SHAPE_BYTES - 3)}…` : like.shape;
  return `… [${count} ${unit}${count === 1 ? '' : 's'} omitted${like === undefined ? '' : `, ${like.count} like: ${shape}`}] …`;
}

const GAP_MARKER = /^\u2026 \[(\d+) lines? omitted(?:, \d+ like: .*)?\] \u2026$/;

/** The count a gap line (with or without its `like:` part) stands for, or undefined when `line` is not exactly a gap line. */
export function parseGapMarker(line: string): number | undefined {
  const match = GAP_MARKER.exec(line);
  return match ? Number(match[1]) : undefined;
}

/** Inline code that survives backticks inside `text` (CommonMark: a longer delimiter, padded). */
export function inlineCode(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * `…[truncated: N of M bytes shown -- full text: `<retrieval>`]`. N is the
 * UTF-8 size of the text as shown (kept lines and gap lines), M the true size
 * of the whole source. `retrieval` is a complete command and is quoted as
 * given: wrapping it again is how the seed printed
 * `headspace inspect headspace inspect x --logs --logs`.
 */
export function formatTruncationMarker(shownBytes: number, totalBytes: number, retrieval?: string): string {
  const where = retrieval === undefined || retrieval === '' ? '' : ` -- full text: ${inlineCode(retrieval)}`;
  return `…[truncated: ${shownBytes} of ${totalBytes} bytes shown${where}]`;
}

const TRUNCATION_MARKER = /^\u2026\[truncated: \d+ of \d+ bytes shown(?: -- full text: .*)?\]$/;

/** True when `line` reads exactly like a truncation marker. */
export function isTruncationMarker(line: string): boolean {
  return TRUNCATION_MARKER.test(line);
}

/**
 * A log line that reads exactly like one of our markers would make a reader
 * (or the renderer re-shrinking an excerpt) miscount what was left out, so its
 * leading `…` becomes `...`. Nothing else about the line changes.
 */
function defuseMarkerImitation(line: string): string {
  return line.startsWith('…') && (GAP_MARKER.test(line) || TRUNCATION_MARKER.test(line)) ? `...${line.slice(1)}` : line;
}

interface DecodedLine {
  /** Cleaned text, possibly only the head of a giant line: what is scored. */
  text: string;
  /** What is shown: cleaned, clipped to LINE_CAP_BYTES with a note. */
  shown: string;
  shownBytes: number;
  clipped: boolean;
}

/** What decodeLine needs to know about the whole log, computed once. */
interface LogFacts {
  /** Any `\r` at all: without one, no line needs the backwards search. */
  hasCarriageReturn: boolean;
  /** Valid UTF-8: then an unchanged line's size is its raw byte count. */
  validUtf8: boolean;
}

/** Decodes bytes [start, end) of `buf` (one line, without its `\n`). */
function decodeLine(buf: Buffer, start: number, end: number, facts: LogFacts): DecodedLine {
  let stop = end;
  let from = start;
  if (facts.hasCarriageReturn) {
    while (stop > start && buf[stop - 1] === 0x0d) stop--;
    // A `\r`-overwritten line shows its last segment; search only this line's bytes.
    const lastCr = buf.subarray(start, stop).lastIndexOf(0x0d);
    if (lastCr !== -1) from = start + lastCr + 1;
  }
  let decodeEnd = Math.min(stop, from + DECODE_CAP_BYTES);
  while (decodeEnd < stop && decodeEnd > from && ((buf[decodeEnd] ?? 0) & 0xc0) === 0x80) decodeEnd--;
  const raw = buf.toString('utf8', from, decodeEnd);
  const text = defuseMarkerImitation(cleanLine(raw));
  const undecoded = stop - decodeEnd;
  const unchanged = text === raw;
  const size = unchanged && facts.validUtf8 ? decodeEnd - from : utf8Length(text);
  const clipped = undecoded > 0 || size > LINE_CAP_BYTES;
  const shown = clipped ? clipLine(text, LINE_CAP_BYTES, undecoded) : text;
  return {
    text,
    shown,
    shownBytes: clipped ? utf8Length(shown) : size,
    clipped,
  };
}

/** Calls `visit(index, start, end)` for every line; a final `\n` does not open an empty line. */
function forEachLine(buf: Buffer, visit: (index: number, start: number, end: number) => void): number {
  let start = 0;
  let index = 0;
  while (start < buf.length) {
    let end = buf.indexOf(0x0a, start);
    if (end === -1) end = buf.length;
    visit(index++, start, end);
    start = end + 1;
  }
  return index;
}

/** Lines are viewed a chunk at a time, so no string ever holds more than this much of the log. */
const VIEW_CHUNK_BYTES = 1 << 20;
/** Anything but printable ASCII and tab: such a line needs a real UTF-8 decode and cleaning. */
const NOT_PLAIN_ASCII = /[^\t\x20-\x7e]/;

/**
 * Like forEachLine, but also hands over a latin1 view of each line, cut from
 * one decode per 1 MiB chunk. For a line of printable ASCII the view is its
 * exact text, which spares a decode per line (the bulk of the time on a large
 * log). A line longer than a chunk gets no view.
 */
function forEachLineView(buf: Buffer, visit: (index: number, start: number, end: number, view: string | undefined) => void): void {
  let index = 0;
  let chunkStart = 0;
  while (chunkStart < buf.length) {
    const windowEnd = Math.min(buf.length, chunkStart + VIEW_CHUNK_BYTES);
    const lastNewline = windowEnd === buf.length ? windowEnd - 1 : buf.subarray(chunkStart, windowEnd).lastIndexOf(0x0a) + chunkStart;
    if (lastNewline < chunkStart) {
      // A giant line: no view; decodeLine reads only its head.
      let end = buf.indexOf(0x0a, chunkStart);
      if (end === -1) end = buf.length;
      visit(index++, chunkStart, end, undefined);
      chunkStart = end + 1;
      continue;
    }
    const chunkEnd = lastNewline + 1;
    const view = buf.toString('latin1', chunkStart, chunkEnd);
    let pos = 0;
    while (pos < view.length) {
      let nl = view.indexOf('\n', pos);
      if (nl === -1) nl = view.length;
      visit(index++, chunkStart + pos, chunkStart + nl, view.slice(pos, nl));
      pos = nl + 1;
    }
    chunkStart = chunkEnd;
  }
}

function countLines(buf: Buffer): number {
  // A plain byte loop: one native indexOf call per line costs more than this on logs of short lines.
  let count = 0;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 0x0a) count++;
  return buf.length > 0 && buf[buf.length - 1] !== 0x0a ? count + 1 : count;
}

/**
 * Picks the lines of `log` an agent should see, within `budgetBytes`.
 *
 * - Empty log: empty excerpt, 0 lines.
 * - A log that fits and needs no cleaning (valid UTF-8, no escapes or
 *   controls, no line imitating our markers) comes back byte for byte, with
 *   `truncated: false`.
 * - A log that fits once cleaned comes back whole and cleaned (`\r` overwrites
 *   collapsed, escapes stripped, controls made visible, invalid UTF-8 as
 *   U+FFFD), still `truncated: false`.
 * - Otherwise lines are chosen by score, lines over LINE_CAP_BYTES are clipped,
 *   gaps are marked, and, when `retrieval` is given and fits, a truncation
 *   marker ends the excerpt.
 *
 * Linear in the size of the log; memory is about 10 bytes per line plus the
 * excerpt. A giant line is decoded only for its first DECODE_CAP_BYTES, so an
 * error past that point on the same line is not seen by the scorer.
 */
export function selectExcerpt(log: Buffer | string, options: SelectExcerptOptions): SelectedExcerpt {
  const buf = typeof log === 'string' ? Buffer.from(log, 'utf8') : log;
  const budget = Math.max(MIN_EXCERPT_BUDGET, Math.floor(options.budgetBytes));
  const totalBytes = buf.length;
  const totalLines = countLines(buf);
  const whole = (excerpt: string): SelectedExcerpt => ({ excerpt, truncated: false, total_bytes: totalBytes, total_lines: totalLines, omitted_lines: 0 });
  if (totalLines === 0) return whole('');

  const facts: LogFacts = { hasCarriageReturn: buf.includes(0x0d), validUtf8: isUtf8(buf) };
  if (totalBytes <= budget && facts.validUtf8) {
    const text = buf.toString('utf8');
    if (!needsCleaning(text) && !/^\u2026(?: \[\d+ lines? omitted|\[truncated: )/m.test(text)) return whole(text);
  }

  const scores = new Uint8Array(totalLines);
  const costs = new Uint32Array(totalLines);
  /** 1 + the shape id of a line that repeats a shape (line-scoring.ts), 0 for any other line. */
  const repeatShape = new Uint16Array(totalLines);
  const scorer = createLineScorer();
  let cleanedBytes = 0;
  let anyClipped = false;
  forEachLineView(buf, (i, start, end, view) => {
    const line: Pick<DecodedLine, 'text' | 'shownBytes' | 'clipped'> =
      view !== undefined && view.length <= LINE_CAP_BYTES && !NOT_PLAIN_ASCII.test(view)
        ? { text: view, shownBytes: view.length, clipped: false }
        : decodeLine(buf, start, end, facts);
    scores[i] = scorer(line.text);
    repeatShape[i] = scorer.repeatOf + 1;
    costs[i] = line.shownBytes + 1;
    cleanedBytes += costs[i]!;
    anyClipped ||= line.clipped;
  });

  // The whole log fits once cleaned: nothing to choose.
  if (!anyClipped && cleanedBytes - 1 <= budget) {
    const lines: string[] = [];
    forEachLine(buf, (_i, start, end) => lines.push(decodeLine(buf, start, end, facts).shown));
    return whole(lines.join('\n'));
  }

  addContextScores(scores);
  for (let i = 0; i < totalLines; i++) {
    scores[i] = Math.max(scores[i]!, positionScore(i, totalLines));
    // A repeat says nothing new: it is not filler, only kept when context or position lifts it.
    if (repeatShape[i] !== 0 && scores[i]! < REPEAT_LIFT_MIN) costs[i] = NEVER_KEPT;
  }

  const markerReserve =
    options.retrieval === undefined ? 0 : utf8Length(formatTruncationMarker(Math.max(budget, totalBytes), totalBytes, options.retrieval)) + 1;
  const withMarker = markerReserve > 0 && markerReserve <= budget / 2;
  const gapCost = utf8Length(formatGapMarker(totalLines)) + 1;
  // Every line costs its text plus a newline; the last newline is never written.
  const room = budget + 1 - (withMarker ? markerReserve : 0);
  const chosen = chooseUnits(scores, costs, room, gapCost, 'tail-first');
  const gapLines = describeGaps(chosen, costs, repeatShape, room, scorer);

  const out: string[] = [];
  let gap = 0;
  let gapIndex = 0;
  let omitted = 0;
  let clippedShown = false;
  forEachLineView(buf, (i, start, end) => {
    if (chosen[i] !== 1) {
      gap++;
      return;
    }
    if (gap > 0) out.push(gapLines[gapIndex++] ?? formatGapMarker(gap));
    omitted += gap;
    gap = 0;
    const line = decodeLine(buf, start, end, facts);
    clippedShown ||= line.clipped;
    out.push(line.shown);
  });
  if (gap > 0) out.push(gapLines[gapIndex++] ?? formatGapMarker(gap));
  omitted += gap;

  let excerpt = out.join('\n');
  const truncated = omitted > 0 || clippedShown;
  if (truncated && withMarker) excerpt += `\n${formatTruncationMarker(utf8Length(excerpt), totalBytes, options.retrieval)}`;
  return { excerpt, truncated, total_bytes: totalBytes, total_lines: totalLines, omitted_lines: omitted };
}

/** A gap names a shape only when at least this many of its lines have it. */
const MIN_LIKE_COUNT = 2;

/**
 * The gap lines of an excerpt, in order: each run of left-out lines as one
 * gap line, which also names the run's main repeated shape when the bytes
 * left in `room` (after the kept lines and plain gap lines) allow. The main
 * shape is the most common one, a shape that says something (a warning, an
 * error) counting double against plain output: a run of gcc warnings with
 * their source, caret and `In function` lines is named by the warning. Runs
 * with the most lines of their shape get their summary first.
 */
function describeGaps(
  chosen: Uint8Array,
  costs: Uint32Array,
  repeatShape: Uint16Array,
  room: number,
  shapes: Pick<LineScorer, 'shapeText' | 'shapeScore'>,
): string[] {
  const gaps: Array<{ count: number; like?: GapLike }> = [];
  let used = 0;
  let count = 0;
  let shapeCounts = new Map<number, number>();
  const close = () => {
    let best = 0;
    let bestCount = 0;
    let bestWeight = 0;
    for (const [shape, n] of shapeCounts) {
      const weight = shapes.shapeScore(shape - 1) >= KIND_SCORES.warning ? 2 * n : n;
      if (weight > bestWeight || (weight === bestWeight && shape < best)) [best, bestCount, bestWeight] = [shape, n, weight];
    }
    gaps.push(bestCount >= MIN_LIKE_COUNT ? { count, like: { count: bestCount, shape: shapes.shapeText(best - 1) } } : { count });
    used += utf8Length(formatGapMarker(count)) + 1;
    count = 0;
    shapeCounts = new Map();
  };
  for (let i = 0; i < chosen.length; i++) {
    if (chosen[i] === 1) {
      if (count > 0) close();
      used += costs[i]!;
      continue;
    }
    count++;
    const shape = repeatShape[i]!;
    if (shape !== 0) shapeCounts.set(shape, (shapeCounts.get(shape) ?? 0) + 1);
  }
  if (count > 0) close();

  const lines = gaps.map((g) => formatGapMarker(g.count));
  let slack = room - used;
  const byLikeCount = gaps.map((_, k) => k).sort((a, b) => (gaps[b]!.like?.count ?? 0) - (gaps[a]!.like?.count ?? 0) || a - b);
  for (const k of byLikeCount) {
    const { count: n, like } = gaps[k]!;
    if (like === undefined) break;
    const line = formatGapMarker(n, 'line', like);
    const extra = utf8Length(line) - utf8Length(lines[k]!);
    if (extra > slack) continue;
    lines[k] = line;
    slack -= extra;
  }
  return lines;
}

/** Smallest per-line cap when shrinking text: a line this short still says what it is. */
const MIN_UNIT_BYTES = 40;

function unitCapFor(budget: number): number {
  return Math.min(LINE_CAP_BYTES, Math.max(MIN_UNIT_BYTES, Math.floor(budget / 2)));
}

/** Text split, scored and measured once, so a budget search can shrink it many times cheaply. */
export interface PreparedText {
  readonly lines: readonly string[];
  readonly scores: Uint8Array;
  readonly sizes: Uint32Array;
  /** Lines each entry stands for: 1, or N for an existing gap line (never kept, merged into the new gaps). */
  readonly weights: Uint32Array;
  readonly bytes: number;
  readonly plainOrder: 'tail-first' | 'head-first';
}

/**
 * `log` text (an excerpt) weighs its last lines highest, as selectExcerpt
 * does; `prose` (a summary) weighs its first line highest and otherwise keeps
 * earlier lines first, since a summary leads with its headline.
 */
export function prepareText(text: string, kind: 'log' | 'prose' = 'log'): PreparedText {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const sizes = new Uint32Array(lines.length);
  const weights = new Uint32Array(lines.length);
  lines.forEach((line, i) => {
    sizes[i] = utf8Length(line);
    weights[i] = parseGapMarker(line) ?? 1;
  });
  const scores = kind === 'log' ? scoreLogLines(lines) : Uint8Array.from(lines, (line, i) => (i === 0 ? 100 : KIND_SCORES[classifyLine(line)]));
  return { lines, scores, sizes, weights, bytes: utf8Length(text), plainOrder: kind === 'log' ? 'tail-first' : 'head-first' };
}

export interface ShrunkText {
  text: string;
  /** False when the text fit and is returned unchanged. */
  shrunk: boolean;
}

/**
 * Shrinks prepared text to at most `budgetBytes` (raised to MIN_UNIT_BYTES) the
 * way selectExcerpt shrinks a log: important lines first, order kept, gaps
 * marked, long lines clipped with `…[+N bytes]`. Existing gap lines are merged
 * into the new gaps with their counts added, so the counts stay true.
 */
export function shrinkPrepared(prepared: PreparedText, budgetBytes: number): ShrunkText {
  const { lines, scores, sizes, weights } = prepared;
  if (prepared.bytes <= budgetBytes) return { text: lines.join('\n'), shrunk: false };
  const budget = Math.max(MIN_UNIT_BYTES, Math.floor(budgetBytes));
  const cap = unitCapFor(budget);
  let totalWeight = 0;
  const costs = new Float64Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const gapLine = weights[i] !== 1 || parseGapMarker(lines[i] ?? '') !== undefined;
    costs[i] = gapLine ? Infinity : Math.min(sizes[i]!, cap) + 1;
    totalWeight += weights[i]!;
  }
  const gapCost = utf8Length(formatGapMarker(totalWeight)) + 1;
  const chosen = chooseUnits(scores, costs, budget + 1, gapCost, prepared.plainOrder);
  const out: string[] = [];
  let gap = 0;
  lines.forEach((line, i) => {
    if (chosen[i] !== 1) {
      gap += weights[i]!;
      return;
    }
    if (gap > 0) out.push(formatGapMarker(gap));
    gap = 0;
    out.push(clipLine(line, cap));
  });
  if (gap > 0) out.push(formatGapMarker(gap));
  return { text: out.join('\n'), shrunk: true };
}

/** Bytes an item takes as a markdown list entry: `- ` first line, `  ` continuation lines, newline. */
export function listItemBytes(item: string): number {
  let lines = 1;
  for (let at = item.indexOf('\n'); at !== -1; at = item.indexOf('\n', at + 1)) lines++;
  return utf8Length(item) + 2 * lines + 1;
}

/**
 * Shrinks a list (findings, warnings, attention) to at most `budgetBytes` of
 * rendered `- item` lines. Items are kept whole where possible and in order;
 * among items that do not all fit, those that read like errors, failures or
 * answers win, then the earlier ones (producers list the most important
 * first), unless `priority` gives an item's score. Left-out runs become one `… [N items omitted] …` item; an item longer
 * than the per-item cap is clipped with `…[+N bytes]`.
 */
export function shrinkItems(items: readonly string[], budgetBytes: number, priority?: ReadonlyArray<number | undefined>): { items: string[]; shrunk: boolean } {
  const total = items.reduce((sum, item) => sum + listItemBytes(item), 0);
  if (total <= budgetBytes) return { items: [...items], shrunk: false };
  const budget = Math.max(MIN_UNIT_BYTES, Math.floor(budgetBytes));
  const cap = unitCapFor(budget);
  const clippedItems = items.map((item) => clipLine(item, cap));
  // `priority` (per item) overrides how an item reads when the producer knows better (a parsed test summary).
  const scores = clippedItems.map((item, i) => priority?.[i] ?? Math.max(...item.split('\n').map((line) => KIND_SCORES[classifyLine(line)])));
  const costs = clippedItems.map(listItemBytes);
  const gapCost = listItemBytes(formatGapMarker(items.length, 'item'));
  const chosen = chooseUnits(scores, costs, budget, gapCost, 'head-first');
  const out: string[] = [];
  let gap = 0;
  clippedItems.forEach((item, i) => {
    if (chosen[i] !== 1) {
      gap++;
      return;
    }
    if (gap > 0) out.push(formatGapMarker(gap, 'item'));
    gap = 0;
    out.push(item);
  });
  if (gap > 0) out.push(formatGapMarker(gap, 'item'));
  return { items: out, shrunk: true };
}
