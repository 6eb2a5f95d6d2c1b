/**
 * What an agent reading a log needs first: the lines that say what went wrong
 * or what came out. Scoring is shared by the excerpt selector (whole logs) and
 * the markdown renderer (shrinking fields), so both keep the same lines.
 *
 * Scores are small integers, 0..100; higher is kept first. They combine what a
 * line says (its kind), where it sits (the last lines carry final answers, the
 * first lines say what ran), and its neighbours (a compiler's source and caret
 * lines follow the diagnostic).
 */

export type LineKind =
  'fatal' | 'diagnostic' | 'test_failure' | 'error' | 'test_summary' | 'assertion' | 'answer' | 'traceback' | 'stack_frame' | 'warning' | 'plain' | 'blank';

export const KIND_SCORES: Readonly<Record<LineKind, number>> = Object.freeze({
  fatal: 90,
  diagnostic: 86,
  test_failure: 84,
  error: 80,
  test_summary: 78,
  assertion: 72,
  answer: 66,
  traceback: 60,
  stack_frame: 45,
  warning: 30,
  plain: 1,
  blank: 0,
});

/** The very last lines of a log: kept before anything else. */
export const FINAL_LINES = 3;
/** The last lines of a log: high priority, final answers and summaries live there. */
export const TAIL_LINES = 10;
/** The first lines of a log: what ran and how it started. */
export const HEAD_LINES = 3;
/** Node/Java stack frames kept at `stack_frame` score after an error; the rest are noise. */
export const STACK_FRAMES_KEPT = 3;
/** Lines of one shape (see lineShape) keep their score this many times; the rest are repeats. */
export const REPEATS_KEPT = 2;
/**
 * Content score of a repeat: what a blank line says, below plain output and
 * far below context. Three thousand `unused variable ‘x_N’` warnings must not
 * outrank, or crowd out, the one error among them.
 */
export const REPEAT_SCORE = 0;
/** Lines right after / before a strong line (compiler source + caret lines, the command before a failure). */
const CONTEXT_AFTER_SCORE = 28;
const CONTEXT_BEFORE_SCORE = 22;
/**
 * A repeat whose final score (content, context, position) reaches this was
 * lifted by something other than what it says: it sits next to a strong line
 * or among the first or last lines. Below it, a repeat is worth no bytes.
 */
export const REPEAT_LIFT_MIN = CONTEXT_BEFORE_SCORE;
/** Lines at or above this score pull in their neighbours as context. */
const CONTEXT_SOURCE_MIN = KIND_SCORES.assertion;
/** Bound on the shape table, so a log of a million distinct lines stays small (shape ids fit a Uint16). */
export const MAX_SHAPES = 10_000;
/** Only this much of a line decides its shape. */
const SHAPE_CHARS = 200;

const PY_TRACEBACK = /^\s*Traceback \(most recent call last\):/;
const STACK_FRAME = /^\s+at\s\S/;
const FATAL = /\b(?:fatal|FATAL|Fatal|panic|PANIC|Panic)\b|[Ss]egmentation fault|core dumped|\bout of memory\b|\bOOM\b|\bKilled\b/;
const DIAGNOSTIC = /^\S+:\d+(?::\d+)?:\s*(?:fatal )?error\b|\(\d+,\d+\): error TS\d+|^error(?:\[E\d+\])?:|^\s*-->\s*\S+:\d+:\d+/;
const TEST_FAILURE = /^(?:FAILED|ERROR)\s+\S+::|^\s*FAIL\b|--- FAIL:|^\s*(?:[\u2717\u00D7\u2715\u2716]|not ok \d+)\s|\bFAILED\b/;
const ERROR = /\b(?:error|ERROR|Error)\b|\w(?:Error|Exception)\b|\bException\b/;
// `\s.*` rather than `\s+.*`: the two overlap, and on `Tests` followed by
// 4,000 spaces the overlap backtracked quadratically (6 ms a line, a 10 MiB
// log of them froze every result for 16 s; #10 item 9). Same language.
const TEST_SUMMARY =
  /\b\d+ (?:failed|passed|failing|passing|errors?|skipped)\b|^\s*Tests?(?: Files)?:?\s.*\b(?:failed|passed)\b|^(?:ok|FAIL)\s+\S+\s+[\d.]+m?s\b|^(?:PASS|FAIL|ok|FAILED)$/;
const ASSERTION = /AssertionError|\bassert\b|^\s*(?:Expected|Received|Actual)\b|^E\s{2,}\S/;
/**
 * `expected … received|got|but was|to equal|to be`, tested as two linear
 * scans from the FIRST `expected` (a later one can only match less). As one
 * unanchored `\bexpected\b.*\b(?:…)` it rescanned the rest of the line from
 * every `expected`: quadratic on a line of them (#10 item 9).
 */
const EXPECTED = /\bexpected\b/;
const EXPECTED_OUTCOME = /\b(?:received|got|but was|to (?:equal|be))\b/;

function isAssertion(line: string): boolean {
  if (ASSERTION.test(line)) return true;
  const at = line.search(EXPECTED);
  return at >= 0 && EXPECTED_OUTCOME.test(line.slice(at + 'expected'.length));
}
const ANSWER = /\banswer\s*[=:]|\bresult\s*[=:]|\bfinal\b|\btotal\b/i;
const WARNING = /\bwarn(?:ing)?\b|\bWARN(?:ING)?\b|\bWarning\b|Deprecat/;

/**
 * Every substring one of the patterns above needs; a line without any is
 * plain. Spelled out in the cases the patterns accept rather than with `/i`:
 * irregexp runs the case-sensitive form about a fifth faster, and this test
 * runs on every line of every log.
 */
const ANY_SIGNAL =
  /[Ee]rr|ERR|[Ff]atal|FATAL|[Pp]anic|PANIC|[Ss]egmentation|core dumped|memory|OOM|Killed|[Ff]ail|FAIL|[\u2717\u00D7\u2715\u2716]|not ok|[Pp]ass|PASS|skipped|[Tt]ests?\b|[Aa]ssert|[Ee]xpected|[Rr]eceived|[Aa]ctual|[Aa]nswer|ANSWER|[Rr]esult|RESULT|[Ff]inal|FINAL|[Tt]otal|TOTAL|[Ww]arn|WARN|[Dd]eprecat|Exception|Traceback|^E\s|-->|^ok\b/;

/** The kind of one line, read alone (no context). */
export function classifyLine(line: string): LineKind {
  // Most lines of a long log say nothing special: one scan rules them out.
  if (!ANY_SIGNAL.test(line)) return !/\S/.test(line) ? 'blank' : STACK_FRAME.test(line) ? 'stack_frame' : 'plain';
  if (line.trim() === '') return 'blank';
  if (PY_TRACEBACK.test(line) || FATAL.test(line)) return 'fatal';
  if (DIAGNOSTIC.test(line)) return 'diagnostic';
  if (TEST_FAILURE.test(line)) return 'test_failure';
  if (ERROR.test(line)) return 'error';
  if (TEST_SUMMARY.test(line)) return 'test_summary';
  if (isAssertion(line)) return 'assertion';
  if (ANSWER.test(line)) return 'answer';
  if (STACK_FRAME.test(line)) return 'stack_frame';
  if (WARNING.test(line)) return 'warning';
  return 'plain';
}

/** A leading `file:line[:col]:` (gcc, go, pytest) or `file(line,col):` (tsc) location. */
const LOCATION_PREFIX = /^\S+?(?::\d+){1,2}:\s*|^\S+?\(\d+,\d+\):\s*/;
/** A quoted segment, each quote style on its own (an apostrophe in prose rarely pairs up on one line). */
const QUOTES: ReadonlyArray<readonly [open: string, pattern: RegExp, as: string]> = [
  ['‘', /\u2018[^\u2019]*\u2019/g, '‘…’'],
  ["'", /'[^']*'/g, "'…'"],
  ['"', /"[^"]*"/g, '"…"'],
  ['`', /`[^`]*`/g, '`…`'],
];
/** A token with a slash in it (a path, a URL), matched from the token's start only: no rescans. */
const PATH_TOKEN = /(?<![^\s'"\u2018\u2019`()[\]])[^\s'"\u2018\u2019`()[\]]*\/[^\s'"\u2018\u2019`()[\]]*/g;
/**
 * A hex id (a hash, an address: six hex digits or more, with or without 0x),
 * or a word with a digit in it (`scratch_12`, `pkg001`, `2.10.1`, `x86_64`):
 * numbered names vary like numbers do.
 */
const NUMBERED = /\b(?:0x)?[0-9a-fA-F]{6,}\b|\b[A-Za-z_]*\d[\w.-]*/g;
/** A run of one symbol (a caret line's `~~~~` under a name, a `-----` rule): its length varies with what it underlines. */
const SYMBOL_RUN = /([^\w\s])\1{2,}/g;

/**
 * The shape of a line: the line with what varies between near-duplicates
 * stood in for. A leading `file:line:col:` location is dropped; quoted
 * segments (‘…’ '…' "…" `…`) become empty quotes; paths and URLs become `…/…`;
 * hex ids and words holding digits become `#`; a run of one symbol becomes
 * two of it, and a run of spaces one space.
 * `server.c:94:9: warning: unused variable ‘scratch_18’ [-Wunused-variable]`
 * has the shape `warning: unused variable ‘…’ [-Wunused-variable]`. Only the
 * first SHAPE_CHARS characters count. This runs on every line of every log,
 * so each rewrite is skipped when a native substring search says it cannot
 * apply.
 */
export function lineShape(line: string): string {
  let s = (line.length > SHAPE_CHARS ? line.slice(0, SHAPE_CHARS) : line).trim();
  if (s.includes(':')) s = s.replace(LOCATION_PREFIX, '');
  for (const [open, pattern, as] of QUOTES) if (s.includes(open)) s = s.replace(pattern, as);
  if (s.includes('/')) s = s.replace(PATH_TOKEN, '…/…');
  s = s.replace(NUMBERED, '#').replace(SYMBOL_RUN, '$1$1');
  return s.includes('  ') || s.includes('\t') ? s.replace(/\s+/g, ' ') : s;
}

/**
 * Scores lines one at a time, in order, remembering the context a line needs.
 * After each call, `repeatOf` says whether that line was a repeat (see
 * createLineScorer) and of which shape; `shapeText` gives a shape's text.
 */
export interface LineScorer {
  (line: string): number;
  /** Shape id of the line just scored when it repeats a shape already seen REPEATS_KEPT times; -1 otherwise. Ids are below MAX_SHAPES. */
  readonly repeatOf: number;
  /** The shape (see lineShape) with id `id`, or '' for an unknown id. */
  shapeText(id: number): string;
  /** The content score of the first line of shape `id` (0 for an unknown id): does the shape say anything? */
  shapeScore(id: number): number;
}

/**
 * A stateful scorer for one pass over one text. It follows Python tracebacks
 * (the header, every indented frame line, and the exception line that ends
 * the block), counts stack frames after an error so only the first few score,
 * and scores REPEAT_SCORE for every non-blank line whose shape (lineShape) it
 * has already seen REPEATS_KEPT times, whatever its kind: a thousand copies of
 * one error, or three thousand of one warning with its source and caret
 * lines, do not crowd out the one new line. Traceback frame lines and stack
 * frames are not counted (STACK_FRAMES_KEPT bounds the latter).
 */
export function createLineScorer(): LineScorer {
  let inTraceback = false;
  let framesSeen = 0;
  let repeatOf = -1;
  const shapeIds = new Map<string, number>();
  const shapes: string[] = [];
  const seen: number[] = [];
  const firstScores: number[] = [];

  // A run of identical lines (retry spam, a stuck progress line) is shaped once.
  let lastLine: string | undefined;
  let lastShape = '';
  const demoteRepeats = (line: string, score: number): number => {
    if (line !== lastLine) {
      lastLine = line;
      lastShape = lineShape(line);
    }
    const shape = lastShape;
    const id = shapeIds.get(shape);
    if (id === undefined) {
      if (shapes.length < MAX_SHAPES) {
        shapeIds.set(shape, shapes.length);
        shapes.push(shape);
        seen.push(1);
        firstScores.push(score);
      }
      return score;
    }
    const count = (seen[id] ?? 0) + 1;
    seen[id] = count;
    if (count <= REPEATS_KEPT) return score;
    repeatOf = id;
    return REPEAT_SCORE;
  };

  const score = (line: string): number => {
    repeatOf = -1;
    if (inTraceback) {
      if (/^\s/.test(line) && line.trim() !== '') return KIND_SCORES.traceback;
      // The first unindented line closes the block: it names the exception.
      inTraceback = false;
      if (line.trim() !== '') return demoteRepeats(line, KIND_SCORES.fatal);
    }
    if (PY_TRACEBACK.test(line)) {
      inTraceback = true;
      return demoteRepeats(line, KIND_SCORES.fatal);
    }
    const kind = classifyLine(line);
    if (kind === 'stack_frame') {
      framesSeen++;
      return framesSeen <= STACK_FRAMES_KEPT ? KIND_SCORES.stack_frame : KIND_SCORES.plain;
    }
    framesSeen = 0;
    return kind === 'blank' ? KIND_SCORES.blank : demoteRepeats(line, KIND_SCORES[kind]);
  };
  Object.defineProperty(score, 'repeatOf', { get: () => repeatOf });
  return Object.assign(score, { shapeText: (id: number) => shapes[id] ?? '', shapeScore: (id: number) => firstScores[id] ?? 0 }) as LineScorer;
}

/**
 * Raises the scores of neighbours of strong lines (score ≥ assertion): the two
 * lines after (a compiler's source and caret lines, a pytest `E` detail) and
 * the line before. Works in place on any array-like, in one linear pass.
 */
export function addContextScores(scores: { length: number; [i: number]: number }): void {
  const n = scores.length;
  let afterLeft = 0;
  for (let i = 0; i < n; i++) {
    const own = scores[i] ?? 0;
    if (afterLeft > 0 && own < CONTEXT_AFTER_SCORE) scores[i] = CONTEXT_AFTER_SCORE;
    afterLeft = own >= CONTEXT_SOURCE_MIN ? 2 : Math.max(0, afterLeft - 1);
  }
  for (let i = n - 2; i >= 0; i--) {
    if ((scores[i + 1] ?? 0) >= CONTEXT_SOURCE_MIN && (scores[i] ?? 0) < CONTEXT_BEFORE_SCORE) scores[i] = CONTEXT_BEFORE_SCORE;
  }
}

/**
 * The score a line earns from its position in a log of `total` lines. The
 * last FINAL_LINES score 100, 99, 98: the final answer lives there and
 * outranks everything. The rest of the last TAIL_LINES score 79 down to 73:
 * above assertions, below errors, so a small budget still shows what failed.
 * The first HEAD_LINES score 55 down to 53 (what ran), and a wider head and
 * tail band scores a little above plain output.
 */
export function positionScore(index: number, total: number): number {
  const fromEnd = total - 1 - index;
  if (fromEnd < FINAL_LINES) return 100 - fromEnd;
  if (fromEnd < TAIL_LINES) return 82 - fromEnd;
  if (index < HEAD_LINES) return 55 - index;
  if (fromEnd < 4 * TAIL_LINES) return 12;
  if (index < 10) return 10;
  return 0;
}

/**
 * Scores of every line of a log held in memory: content, then context, then
 * position (the maximum of the three). The streaming selector does the same
 * over a Buffer without materialising the lines.
 */
export function scoreLogLines(lines: readonly string[]): Uint8Array {
  const scorer = createLineScorer();
  const scores = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) scores[i] = scorer(lines[i] ?? '');
  addContextScores(scores);
  for (let i = 0; i < lines.length; i++) scores[i] = Math.max(scores[i] ?? 0, positionScore(i, lines.length));
  return scores;
}

/**
 * Which units (lines or list items) to keep within `budget` bytes.
 *
 * Greedy by score, highest first. Ties keep the earlier unit, except among
 * plain units (score < 10) when `plainOrder` is `tail-first`, where the later
 * one wins (for logs, the end says more than the middle). A unit is taken only
 * if the running total stays within budget, where the total is the sum of the
 * kept units' `costs` plus `gapCost` for every run of left-out units (each run
 * is shown as one gap marker; `gapCost` must bound the marker's size). A unit
 * whose cost is not finite is never kept (an existing gap marker). Linear in
 * the number of units: counting sort over the 0..255 score range.
 */
export function chooseUnits(
  scores: ArrayLike<number>,
  costs: ArrayLike<number>,
  budget: number,
  gapCost: number,
  plainOrder: 'tail-first' | 'head-first',
): Uint8Array {
  const n = scores.length;
  const chosen = new Uint8Array(n);
  if (n === 0) return chosen;
  const clamp = (s: number) => Math.max(0, Math.min(255, Math.round(s)));
  const counts = new Uint32Array(257);
  for (let i = 0; i < n; i++) counts[256 - clamp(scores[i] ?? 0)]!++;
  // Prefix sums give each score (high first) its slice of `order`.
  const starts = new Uint32Array(257);
  for (let b = 1; b < 257; b++) starts[b] = starts[b - 1]! + counts[b - 1]!;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[starts[256 - clamp(scores[i] ?? 0)]!++] = i;
  if (plainOrder === 'tail-first') {
    // Plain units sit at the end of `order`, ascending; reverse that slice.
    let first = n;
    while (first > 0 && clamp(scores[order[first - 1]!] ?? 0) < 10) first--;
    order.subarray(first).reverse();
  }

  let total = gapCost; // one gap covers everything before anything is chosen
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const cost = costs[i] ?? Infinity;
    if (!Number.isFinite(cost)) continue;
    const leftKept = i === 0 || chosen[i - 1] === 1;
    const rightKept = i === n - 1 || chosen[i + 1] === 1;
    const gapDelta = leftKept && rightKept ? -1 : !leftKept && !rightKept ? 1 : 0;
    const next = total + cost + gapDelta * gapCost;
    if (next <= budget) {
      chosen[i] = 1;
      total = next;
    }
  }
  return chosen;
}
