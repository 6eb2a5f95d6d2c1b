/**
 * The bounded markdown rendering of a result package: what an agent reads by
 * default. It always has the title and all nine section headings in
 * SECTION_ORDER; an empty section is one `(none)` line, and the quieter
 * sections print only what a reader can use (markdown-sections.ts).
 *
 * When the package does not fit the byte bound, what gives way first is what
 * an agent needs least (#13): each step is taken only if the previous one
 * cannot fit, and a binary search finds the largest budget within a step.
 * 1. provenance and usage detail (environment, inputs, the whole policy):
 *    `compact`, then `minimal`;
 * 2. the warnings and suggested-attention lists;
 * 3. the evidence excerpts (not below 80 bytes): the excerpt selector keeps
 *    error lines, failing tests and final lines before anything else; then
 *    each evidence entry collapses to one line with its size and the command
 *    that returns it (80 bytes of a log say less than a finding does);
 * 4. the key findings: the facts distilled from the evidence (a failing
 *    test's name, assertion and file:line) outlast the raw lines;
 * 5. every other text field (labels, names; the summary gets four times the
 *    budget);
 * 6. clipping whole blocks section by section (headings stay), with a
 *    package marker line pointing at the JSON rendering, which is never
 *    clipped.
 * Shrunk text keeps its important lines (line-scoring.ts) and ends with a
 * `…[truncated: N of M bytes shown -- full text: `…`]` marker.
 */
import type { Evidence, ResultPackage, SectionName } from './result-package.js';
import { findingTextLines, SECTION_ORDER, SECTION_TITLES } from './result-package.js';
import { renderArtifact, renderProvenance, renderUsage, type Detail } from './markdown-sections.js';
import {
  formatTruncationMarker,
  inlineCode,
  isTruncationMarker,
  listItemBytes,
  prepareText,
  shrinkItems,
  shrinkPrepared,
  type PreparedText,
} from '../output/select-excerpt.js';
import { plainAction, withAction, type RenderAction } from '../next-action.js';
import { cleanInline, cleanProse, cleanText, clipLine, utf8Length } from './sanitize-text.js';

export { COMMAND_MAX_BYTES, shellJoin, shellQuote } from './markdown-sections.js';

export const DEFAULT_MAX_BYTES = 8192;
/** Smaller bounds are raised to this: below it the nine headings and the clip marker barely fit. */
export const MIN_MAX_BYTES = 512;
export const MIN_EXCERPT_BYTES = 80;
export const MIN_LIST_BYTES = 80;
export const MIN_FIELD_BYTES = 40;

export interface RenderMarkdownOptions {
  /** Bound on the UTF-8 size of the whole output; default 8192, raised to 512. */
  maxBytes?: number;
  /**
   * Pasteable command that returns this package whole as JSON. Markers on
   * shrunk non-evidence fields and the clip marker name it; when absent they
   * say the full text is in the JSON rendering. Evidence markers name the
   * evidence's retrieval (its action rendered by `renderAction`).
   */
  fullResult?: string;
  /**
   * How the face writes a suggested call (an attention item's `action`, an
   * evidence's `retrieval_action`): the CLI a shell command, MCP a tool call.
   * Default: the face-neutral `verb {"arg":value}`.
   */
  renderAction?: RenderAction;
}

interface Budgets {
  detail: Detail;
  /** Warnings and suggested attention. */
  lists: number;
  findings: number;
  excerpt: number;
  /** True once the excerpts are left out and each entry is one line pointing at its source. */
  collapsed: boolean;
  field: number;
}

/** A section body as blocks; a block is one or more lines that are kept or dropped together. */
type Body = string[];

interface PreparedEvidence {
  evidence: Evidence;
  text: PreparedText;
  /** M of the marker: the true size of the source. */
  totalBytes: number;
  /** The face's command that returns the whole source, for the truncation marker. */
  retrieval: string | undefined;
}

interface Context {
  pkg: ResultPackage;
  /** Key findings as markdown lists them: a structured finding gives one item per line of its text. */
  findings: string[];
  /** Per item: a score that outranks the line's own reading, or undefined. */
  findingPriority: Array<number | undefined>;
  /**
   * The findings with each parsed finding reduced to its headline: used while
   * every excerpt is shown whole, since its lines then already carry each
   * failure and diagnostic (nothing is printed twice, #13).
   */
  headlines: string[];
  evidence: PreparedEvidence[];
  /** Each attention item as its line, its suggested call rendered by the face. */
  attention: string[];
  fullResult: string | undefined;
}

const NONE = '(none)';
/** Where a marker sends the reader when the face named no command for the whole package. */
const JSON_RENDERING = 'in the JSON rendering';

/**
 * Renders `pkg` as markdown of at most `maxBytes` UTF-8 bytes (see the module
 * comment for how it shrinks). Deterministic: the same package and options
 * give the same bytes. Never splits a multi-byte character.
 */
export function renderMarkdown(pkg: ResultPackage, options: RenderMarkdownOptions = {}): string {
  const maxBytes = Math.max(MIN_MAX_BYTES, Math.floor(options.maxBytes ?? DEFAULT_MAX_BYTES));
  const renderAction = options.renderAction ?? plainAction;
  const ctx: Context = {
    pkg,
    ...findingItems(pkg),
    evidence: pkg.evidence.map((e) => prepareEvidence(e, renderAction)),
    attention: pkg.attention.map((a) => withAction(a.text, a.action, renderAction)),
    fullResult: options.fullResult,
  };
  const render = (budgets: Budgets) => assemble(layout(ctx, budgets));
  const fits = (budgets: Budgets) => utf8Length(render(budgets)) <= maxBytes;

  let budgets: Budgets = { detail: 'full', lists: Infinity, findings: Infinity, excerpt: Infinity, collapsed: false, field: Infinity };
  if (fits(budgets)) return render(budgets);
  for (const detail of ['compact', 'minimal'] as const) {
    budgets = { ...budgets, detail };
    if (fits(budgets)) return render(budgets);
  }
  const listBytes = (items: readonly string[]) => items.reduce((sum, item) => sum + listItemBytes(item), 0);
  const steps: Array<{ key: 'lists' | 'findings' | 'excerpt' | 'field'; min: number; max: number }> = [
    { key: 'lists', min: MIN_LIST_BYTES, max: Math.max(listBytes(pkg.warnings), listBytes(ctx.attention)) },
    { key: 'excerpt', min: MIN_EXCERPT_BYTES, max: Math.max(0, ...ctx.evidence.map((e) => e.text.bytes)) },
    { key: 'findings', min: MIN_LIST_BYTES, max: listBytes(ctx.findings) },
    { key: 'field', min: MIN_FIELD_BYTES, max: maxBytes },
  ];
  for (const step of steps) {
    if (step.key === 'findings' && ctx.evidence.length > 0) {
      budgets = { ...budgets, collapsed: true };
      if (fits(budgets)) return render(budgets);
    }
    const current = budgets;
    const best = largestFitting(step.min, Math.min(step.max, maxBytes), (x) => fits({ ...current, [step.key]: x }));
    if (best !== undefined) return render({ ...current, [step.key]: best });
    budgets = { ...current, [step.key]: step.min };
  }
  return clipDocument(layout(ctx, budgets), maxBytes, ctx.fullResult);
}

/**
 * A structured finding's first line is its headline (`tests: 6 failed, 23
 * passed (pytest)`): under a tight bound it outlasts the lines it sums up.
 */
const HEADLINE_SCORE = 1000;

/** Kinds lifted from captured output (core/output/findings); list kinds (workspace, file, job) are not. */
const PARSED_KINDS = new Set(['test-summary', 'diagnostics', 'exception']);

function findingItems(pkg: ResultPackage): Pick<Context, 'findings' | 'findingPriority' | 'headlines'> {
  const findings: string[] = [];
  const findingPriority: Array<number | undefined> = [];
  const headlines: string[] = [];
  for (const finding of pkg.key_findings) {
    const parsed = typeof finding !== 'string' && PARSED_KINDS.has(finding.kind);
    findingTextLines(finding).forEach((line, i) => {
      findings.push(line);
      findingPriority.push(parsed && i === 0 ? HEADLINE_SCORE : undefined);
      if (!parsed || i === 0) headlines.push(line);
    });
  }
  return { findings, findingPriority, headlines };
}

/** Largest x in [lo, hi] with ok(x), assuming ok is monotone; undefined when even lo fails. */
function largestFitting(lo: number, hi: number, ok: (x: number) => boolean): number | undefined {
  if (!ok(lo)) return undefined;
  let good = lo;
  let bad = Math.max(lo, hi) + 1;
  if (hi > lo && ok(hi)) return hi;
  if (hi > lo) bad = hi;
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (ok(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

function prepareEvidence(evidence: Evidence, renderAction: RenderAction): PreparedEvidence {
  const lines = cleanText(evidence.excerpt).split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  // selectExcerpt ends a truncated excerpt with its own marker; ours replaces it.
  if (evidence.truncated && lines.length > 0 && isTruncationMarker(lines[lines.length - 1] ?? '')) lines.pop();
  const body = lines.join('\n');
  const retrieval = evidence.retrieval_action === undefined ? evidence.retrieval : renderAction(evidence.retrieval_action);
  return { evidence, text: prepareText(body), totalBytes: evidence.total_bytes ?? utf8Length(body), retrieval };
}

/** Every excerpt is shown whole: nothing of the output was left out, here or by the selector. */
function wholeEvidence(ctx: Context, budgets: Budgets): boolean {
  return (
    ctx.evidence.length > 0 &&
    budgets.excerpt === Infinity &&
    !budgets.collapsed &&
    ctx.evidence.every((e) => !e.evidence.truncated && e.evidence.kind === 'excerpt')
  );
}

function layout(ctx: Context, budgets: Budgets): Record<SectionName, Body> {
  const { pkg } = ctx;
  const field = (text: string) => clipLine(cleanInline(text), budgets.field);
  const list = (items: readonly string[], budget: number, priority?: ReadonlyArray<number | undefined>) => renderList(items, budget, ctx.fullResult, priority);
  const orNone = (body: Body) => (body.length === 0 ? [NONE] : body);
  return {
    // The summary is the text an agent reads first: it gets four field budgets.
    outcome_summary: renderSummary(pkg.outcome_summary, budgets.field * 4, ctx.fullResult),
    status: [pkg.status],
    key_findings: wholeEvidence(ctx, budgets) ? list(ctx.headlines, budgets.findings) : list(ctx.findings, budgets.findings, ctx.findingPriority),
    evidence: ctx.evidence.length === 0 ? [NONE] : ctx.evidence.flatMap((e) => renderEvidence(e, budgets, field, pkg.provenance.job_id)),
    artifacts: pkg.artifacts.length === 0 ? [NONE] : pkg.artifacts.map((a) => renderArtifact(a, field)),
    warnings: list(pkg.warnings, budgets.lists),
    resource_usage: orNone(renderUsage(pkg, budgets.detail)),
    provenance: orNone(renderProvenance(pkg, { detail: budgets.detail, field: budgets.field })),
    attention: list(ctx.attention, budgets.lists),
  };
}

function renderSummary(summary: string, budget: number, fullResult: string | undefined): Body {
  const text = escapeBlockStarts(cleanProse(summary).trim());
  if (text === '') return [NONE];
  if (utf8Length(text) <= budget) return [text];
  const shrunk = shrinkPrepared(prepareText(text, 'prose'), budget).text;
  // A one-line summary cut in place already says `…[+N bytes]`; a marker line would cost more than it saved.
  if (!text.includes('\n')) return [shrunk];
  return [shrunk, fieldMarker(utf8Length(shrunk), utf8Length(text), fullResult)];
}

function renderList(items: readonly string[], budget: number, fullResult: string | undefined, priority?: ReadonlyArray<number | undefined>): Body {
  if (items.length === 0) return [NONE];
  const cleaned = items.map((item) => escapeBlockStarts(cleanProse(item).trim()));
  const { items: shown, shrunk } = shrinkItems(cleaned, budget, priority);
  const blocks = shown.map((item) => `- ${item.split('\n').join('\n  ')}`);
  if (!shrunk) return blocks;
  const total = cleaned.reduce((sum, item) => sum + listItemBytes(item), 0);
  const shownBytes = shown.reduce((sum, item) => sum + listItemBytes(item), 0);
  return [...blocks, `- ${fieldMarker(shownBytes, total, fullResult)}`];
}

/**
 * One evidence entry: a heading line with what it is (and, when something
 * was left out, how big its source is), then the excerpt fenced. The retrieval command appears only in the
 * truncation marker, i.e. only when something was left out; the source is
 * named only when it is not the job the result is about.
 */
function renderEvidence(prepared: PreparedEvidence, budgets: Budgets, field: (text: string) => string, jobId: string | null): Body {
  const { evidence, text, totalBytes, retrieval } = prepared;
  if (budgets.collapsed) {
    const size = [
      evidence.total_bytes === undefined ? `${totalBytes} bytes` : `${evidence.total_bytes} bytes`,
      evidence.total_lines === undefined ? undefined : `${evidence.total_lines} lines`,
    ].filter((p) => p !== undefined);
    return [`- ${field(evidence.label)} (${size.join(', ')}): ${formatTruncationMarker(0, totalBytes, retrieval)}`];
  }
  const { text: shown, shrunk } = shrinkPrepared(text, Math.max(MIN_EXCERPT_BYTES, budgets.excerpt));
  const truncated = evidence.truncated || shrunk;
  // Sizes matter when something was left out; a whole excerpt shows its own size.
  const size = [
    !truncated || evidence.total_bytes === undefined ? undefined : `${evidence.total_bytes} bytes`,
    !truncated || evidence.total_lines === undefined ? undefined : `${evidence.total_lines} line${evidence.total_lines === 1 ? '' : 's'}`,
    // Shrunk here, the gap lines in the excerpt say what is left out; the selector's own count would be stale.
    shrunk || evidence.omitted_lines === undefined || evidence.omitted_lines === 0 ? undefined : `${evidence.omitted_lines} omitted`,
    evidence.source === jobId || evidence.source === '' ? undefined : `from ${field(evidence.source)}`,
  ].filter((part) => part !== undefined);
  const heading = `- ${field(evidence.label)}${size.length > 0 ? ` (${size.join(', ')})` : ''}`;
  const marker = truncated ? formatTruncationMarker(utf8Length(shown), totalBytes, retrieval) : undefined;
  if (shown === '') return [`${heading}: ${NONE}${marker === undefined ? '' : `\n${marker}`}`];
  // A one-line fact reads best inline; anything else is fenced so no output can forge markdown.
  if (evidence.kind === 'fact' && !shown.includes('\n') && !shown.includes('`') && marker === undefined) return [`${heading}: ${shown}`];
  const fence = codeFence(shown);
  return [`${heading}:\n${fence}text\n${shown}\n${fence}${marker === undefined ? '' : `\n${marker}`}`];
}

/** A backtick fence longer than any backtick run in `text`, and at least 3. */
export function codeFence(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * Free text must not open a heading, a code fence or a setext underline of its
 * own: a summary reading `## Status` would forge a section, and a stray ```
 * would swallow every section after it. Such lines get a leading backslash.
 */
function escapeBlockStarts(text: string): string {
  return text.replace(/^( {0,3})(#|```|~~~|=+[ \t]*$|-{2,}[ \t]*$|>)/gm, '$1\\$2');
}

/** Marker for shrunk non-evidence text; the full text lives in the JSON rendering. */
function fieldMarker(shown: number, total: number, fullResult: string | undefined): string {
  return fullResult === undefined
    ? `…[truncated: ${shown} of ${total} bytes shown -- full text: ${JSON_RENDERING}]`
    : formatTruncationMarker(shown, total, fullResult);
}

function assemble(sections: Record<SectionName, Body>): string {
  const lines = ['# headspace result'];
  for (const name of SECTION_ORDER) lines.push(`## ${SECTION_TITLES[name]}`, ...sections[name]);
  return `${lines.join('\n')}\n`;
}

/** Sections that keep their text longest when even minimum budgets overflow. */
const CLIP_PRIORITY: readonly SectionName[] = [
  'status',
  'outcome_summary',
  'key_findings',
  'evidence',
  'attention',
  'warnings',
  'artifacts',
  'resource_usage',
  'provenance',
];
const SECTION_CLIPPED = '…[section clipped]';

/**
 * Last resort: keep the title and all nine headings, give sections their
 * blocks in CLIP_PRIORITY order while they fit (reserving room for a note in
 * every later section), and end with a package marker naming the JSON.
 */
function clipDocument(sections: Record<SectionName, Body>, maxBytes: number, fullResult: string | undefined): string {
  const where = fullResult !== undefined && utf8Length(fullResult) <= 160 ? inlineCode(fullResult) : JSON_RENDERING;
  const packageMarker = `…[result clipped to fit ${maxBytes} bytes -- full result: ${where}]`;
  const fixed =
    utf8Length(assemble(Object.fromEntries(SECTION_ORDER.map((name) => [name, []])) as unknown as Record<SectionName, Body>)) + utf8Length(packageMarker) + 1;
  const noteBytes = utf8Length(SECTION_CLIPPED) + 1;
  let remaining = maxBytes - fixed;
  const kept = {} as Record<SectionName, Body>;
  CLIP_PRIORITY.forEach((name, rank) => {
    const reserve = (CLIP_PRIORITY.length - 1 - rank) * noteBytes;
    const blocks = sections[name];
    const whole = blocks.reduce((sum, block) => sum + utf8Length(block) + 1, 0);
    if (whole <= remaining - reserve) {
      kept[name] = blocks;
      remaining -= whole;
      return;
    }
    const allowance = remaining - reserve - noteBytes;
    const body: Body = [];
    let used = 0;
    for (const block of blocks) {
      const size = utf8Length(block) + 1;
      if (used + size > allowance) break;
      body.push(block);
      used += size;
    }
    if (allowance >= 0) body.push(SECTION_CLIPPED);
    kept[name] = body;
    remaining -= used + (allowance >= 0 ? noteBytes : 0);
  });
  return `${assemble(kept)}${packageMarker}\n`;
}
