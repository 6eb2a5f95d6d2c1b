/**
 * The bounded markdown rendering of a result package: what an agent reads by
 * default. It always has the title and all nine section headings in
 * SECTION_ORDER; what gives way under the byte bound is the text inside them.
 *
 * Shrinking, in order, each step taken only if the previous one cannot fit:
 * 1. a binary search for the largest per-excerpt budget (not below 80 bytes);
 * 2. with excerpts at 80, the largest per-list budget for key findings,
 *    warnings and suggested attention;
 * 3. with lists at their minimum too, the largest budget for every other
 *    text field (labels, names, provenance values; the summary gets four
 *    times that budget);
 * 4. clipping whole blocks section by section (headings stay), with a package
 *    marker line pointing at the JSON rendering, which is never clipped.
 * Shrunk text keeps its important lines (line-scoring.ts) and ends with a
 * `…[truncated: N of M bytes shown -- full text: `…`]` marker.
 */
import type { ArtifactEntry, Evidence, LimitSummary, ResultPackage, SectionName } from './result-package.js';
import { SECTION_ORDER, SECTION_TITLES } from './result-package.js';
import {
  formatTruncationMarker,
  inlineCode,
  isTruncationMarker,
  listItemBytes,
  prepareText,
  shrinkItems,
  shrinkPrepared,
  type PreparedText,
} from './select-excerpt.js';
import { shellQuote } from '../context.js';
import { cleanInline, cleanProse, cleanText, clipLine, utf8Length } from './sanitize-text.js';

export const DEFAULT_MAX_BYTES = 8192;
/** Smaller bounds are raised to this: below it the nine headings and the clip marker barely fit. */
export const MIN_MAX_BYTES = 512;
export const MIN_EXCERPT_BYTES = 80;
export const MIN_LIST_BYTES = 80;
export const MIN_FIELD_BYTES = 40;
/** A command line is shown on one line, clipped past this even when there is room. */
export const COMMAND_MAX_BYTES = 240;

export interface RenderMarkdownOptions {
  /** Bound on the UTF-8 size of the whole output; default 8192, raised to 512. */
  maxBytes?: number;
  /**
   * Pasteable command that returns this package whole as JSON. Markers on
   * shrunk non-evidence fields and the clip marker name it; when absent they
   * say to rerun with `--json`. Evidence markers name `evidence.retrieval`.
   */
  fullResult?: string;
}

interface Budgets {
  excerpt: number;
  list: number;
  field: number;
}

/** A section body as blocks; a block is one or more lines that are kept or dropped together. */
type Body = string[];

interface PreparedEvidence {
  evidence: Evidence;
  text: PreparedText;
  /** M of the marker: the true size of the source. */
  totalBytes: number;
}

interface Context {
  pkg: ResultPackage;
  evidence: PreparedEvidence[];
  fullResult: string | undefined;
}

const NONE = '(none)';

/**
 * Renders `pkg` as markdown of at most `maxBytes` UTF-8 bytes (see the module
 * comment for how it shrinks). Deterministic: the same package and options
 * give the same bytes. Never splits a multi-byte character.
 */
export function renderMarkdown(pkg: ResultPackage, options: RenderMarkdownOptions = {}): string {
  const maxBytes = Math.max(MIN_MAX_BYTES, Math.floor(options.maxBytes ?? DEFAULT_MAX_BYTES));
  const ctx: Context = { pkg, evidence: pkg.evidence.map(prepareEvidence), fullResult: options.fullResult };
  const render = (budgets: Budgets) => assemble(layout(ctx, budgets));
  const fits = (budgets: Budgets) => utf8Length(render(budgets)) <= maxBytes;

  const full: Budgets = { excerpt: Infinity, list: Infinity, field: Infinity };
  if (fits(full)) return render(full);

  const longestExcerpt = Math.max(0, ...ctx.evidence.map((e) => e.text.bytes));
  const excerpt = largestFitting(MIN_EXCERPT_BYTES, Math.min(longestExcerpt, maxBytes), (x) => fits({ ...full, excerpt: x }));
  if (excerpt !== undefined) return render({ ...full, excerpt });

  const lists = [pkg.key_findings, pkg.warnings, pkg.attention].map((items) => items.reduce((sum, item) => sum + listItemBytes(item), 0));
  const atMinExcerpt = { ...full, excerpt: MIN_EXCERPT_BYTES };
  const list = largestFitting(MIN_LIST_BYTES, Math.min(Math.max(0, ...lists), maxBytes), (x) => fits({ ...atMinExcerpt, list: x }));
  if (list !== undefined) return render({ ...atMinExcerpt, list });

  const atMinLists = { ...atMinExcerpt, list: MIN_LIST_BYTES };
  const field = largestFitting(MIN_FIELD_BYTES, maxBytes, (x) => fits({ ...atMinLists, field: x }));
  if (field !== undefined) return render({ ...atMinLists, field });

  return clipDocument(layout(ctx, { ...atMinLists, field: MIN_FIELD_BYTES }), maxBytes, ctx.fullResult);
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

function prepareEvidence(evidence: Evidence): PreparedEvidence {
  const lines = cleanText(evidence.excerpt).split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  // selectExcerpt ends a truncated excerpt with its own marker; ours replaces it.
  if (evidence.truncated && lines.length > 0 && isTruncationMarker(lines[lines.length - 1] ?? '')) lines.pop();
  const body = lines.join('\n');
  return { evidence, text: prepareText(body), totalBytes: evidence.total_bytes ?? utf8Length(body) };
}

function layout(ctx: Context, budgets: Budgets): Record<SectionName, Body> {
  const { pkg } = ctx;
  const field = (text: string) => clipLine(cleanInline(text), budgets.field);
  const optional = (text: string | null) => (text === null || text === '' ? NONE : field(text));
  const number = (value: number | null) => (value === null ? NONE : String(value));
  const list = (items: readonly string[]) => renderList(items, budgets.list, ctx.fullResult);
  const usage = pkg.resource_usage;
  const prov = pkg.provenance;
  return {
    // The summary is the text an agent reads first: it gets four field budgets.
    outcome_summary: renderSummary(pkg.outcome_summary, budgets.field * 4, ctx.fullResult),
    status: [pkg.status],
    key_findings: list(pkg.key_findings),
    evidence: ctx.evidence.length === 0 ? [NONE] : ctx.evidence.flatMap((e) => renderEvidence(e, budgets, field)),
    artifacts: pkg.artifacts.length === 0 ? [NONE] : pkg.artifacts.map((a) => renderArtifact(a, optional, number)),
    warnings: list(pkg.warnings),
    resource_usage: renderUsage(usage),
    provenance: renderProvenance(prov, optional, budgets.field),
    attention: list(pkg.attention),
  };
}

/**
 * Usage in one line, known figures only: a trivial result should cost an
 * agent a few tokens here, not six lines of `(none)`. JSON keeps every field.
 */
function renderUsage(usage: ResultPackage['resource_usage']): Body {
  const parts: string[] = [];
  if (usage.wall_time_seconds !== null) parts.push(`wall ${usage.wall_time_seconds} s`);
  if (usage.cpu_seconds !== null) parts.push(`cpu ${usage.cpu_seconds} s`);
  if (usage.max_memory_bytes !== null) parts.push(`peak memory ${humanBytes(usage.max_memory_bytes)}`);
  if (usage.peak_pids !== null) parts.push(`peak pids ${usage.peak_pids}`);
  if (usage.storage_bytes !== null) parts.push(`storage ${humanBytes(usage.storage_bytes)}`);
  if (usage.output_bytes !== null) parts.push(`output ${humanBytes(usage.output_bytes)}`);
  return parts.length === 0 ? [NONE] : [`- ${parts.join(', ')}`];
}

/** Provenance with the known fields only, the policy on one line with every limit labelled. */
function renderProvenance(prov: ResultPackage['provenance'], optional: (text: string | null) => string, fieldBudget: number): Body {
  const lines: string[] = [];
  const where = [
    prov.workspace_id === null ? null : `workspace ${optional(prov.workspace_id)}`,
    prov.job_id === null ? null : `job ${optional(prov.job_id)}`,
    prov.provider === null ? null : `provider ${optional(prov.provider)}`,
    prov.profile === null ? null : `profile ${optional(prov.profile)}`,
  ].filter((x): x is string => x !== null);
  lines.push(`- ${prov.verb} by headspace ${optional(prov.headspace_version)} (result schema ${prov.result_schema_version})${where.length ? `: ${where.join(', ')}` : ''}`);
  if (prov.environment_digest !== null) lines.push(`- environment: ${optional(prov.environment_digest)}`);
  if (prov.command !== null) lines.push(`- command: ${clipLine(shellJoin(prov.command), Math.min(COMMAND_MAX_BYTES, fieldBudget))}`);
  if (prov.exit_code !== null) lines.push(`- exit code: ${prov.exit_code}`);
  if (prov.started_at !== null || prov.finished_at !== null) lines.push(`- time: ${optional(prov.started_at)} → ${optional(prov.finished_at)}`);
  if (prov.policy_summary.length > 0) {
    lines.push(`- policy: ${prov.policy_summary.map((limit) => `${cleanInline(limit.name)} ${cleanInline(limit.value)} ${enforcement(limit)}`).join('; ')}`);
  }
  for (const input of prov.inputs) lines.push(`- input ${optional(input.destination)}: ${input.size_bytes} bytes, sha256 ${optional(input.sha256)}`);
  return lines;
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** `(enforced by provider)`, `(measured by engine)`; `(measured)` when nothing applies it. */
function enforcement(limit: LimitSummary): string {
  return limit.by === 'none' ? `(${limit.label})` : `(${limit.label} by ${limit.by})`;
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

function renderList(items: readonly string[], budget: number, fullResult: string | undefined): Body {
  if (items.length === 0) return [NONE];
  const cleaned = items.map((item) => escapeBlockStarts(cleanProse(item).trim()));
  const { items: shown, shrunk } = shrinkItems(cleaned, budget);
  const blocks = shown.map((item) => `- ${item.split('\n').join('\n  ')}`);
  if (!shrunk) return blocks;
  const total = cleaned.reduce((sum, item) => sum + listItemBytes(item), 0);
  const shownBytes = shown.reduce((sum, item) => sum + listItemBytes(item), 0);
  return [...blocks, `- ${fieldMarker(shownBytes, total, fullResult)}`];
}

function renderEvidence(prepared: PreparedEvidence, budgets: Budgets, field: (text: string) => string): Body {
  const { evidence, text, totalBytes } = prepared;
  const { text: shown, shrunk } = shrinkPrepared(text, Math.max(MIN_EXCERPT_BYTES, budgets.excerpt));
  const truncated = evidence.truncated || shrunk;
  const blocks = [`- label: ${field(evidence.label)}`, `  - kind: ${evidence.kind}, source: ${field(evidence.source)}, truncated: ${truncated}`];
  const size = [
    evidence.total_bytes === undefined ? undefined : `${evidence.total_bytes} bytes`,
    evidence.total_lines === undefined ? undefined : `${evidence.total_lines} lines`,
    evidence.omitted_lines === undefined ? undefined : `${evidence.omitted_lines} lines omitted`,
  ].filter((part) => part !== undefined);
  if (size.length > 0) blocks.push(`  - source size: ${size.join(', ')}`);
  const marker = truncated ? formatTruncationMarker(utf8Length(shown), totalBytes, evidence.retrieval) : undefined;
  // With a marker the retrieval command is already on screen; without one, say it once here.
  if (marker === undefined && evidence.retrieval !== undefined && evidence.retrieval !== '') blocks.push(`  - retrieval: ${inlineCode(evidence.retrieval)}`);
  if (shown === '') {
    blocks.push(marker === undefined ? `  - excerpt: ${NONE}` : `  - excerpt: ${NONE}\n${marker}`);
    return blocks;
  }
  const fence = codeFence(shown);
  blocks.push(`  - excerpt:\n${fence}text\n${shown}\n${fence}${marker === undefined ? '' : `\n${marker}`}`);
  return blocks;
}

function renderArtifact(artifact: ArtifactEntry, optional: (text: string | null) => string, number: (value: number | null) => string): string {
  return [
    `- name: ${optional(artifact.name)}`,
    `  - purpose: ${optional(artifact.purpose)}`,
    `  - media_type: ${optional(artifact.media_type)}`,
    `  - digest: ${optional(artifact.digest)}`,
    `  - size_bytes: ${number(artifact.size_bytes)}`,
    `  - reference: ${optional(artifact.reference)}`,
  ].join('\n');
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
    ? `…[truncated: ${shown} of ${total} bytes shown -- full text: rerun with \`--json\`]`
    : formatTruncationMarker(shown, total, fullResult);
}

/** argv as one pasteable POSIX shell line: bare words stay bare, others are single-quoted, controls use $'…'. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

function assemble(sections: Record<SectionName, Body>): string {
  const lines = ['# headspace result'];
  for (const name of SECTION_ORDER) lines.push(`## ${SECTION_TITLES[name]}`, ...sections[name]);
  return `${lines.join('\n')}\n`;
}

/** Sections that keep their text longest when even minimum budgets overflow. */
const CLIP_PRIORITY: readonly SectionName[] = ['status', 'outcome_summary', 'key_findings', 'evidence', 'attention', 'warnings', 'artifacts', 'resource_usage', 'provenance'];
const SECTION_CLIPPED = '…[section clipped]';

/**
 * Last resort: keep the title and all nine headings, give sections their
 * blocks in CLIP_PRIORITY order while they fit (reserving room for a note in
 * every later section), and end with a package marker naming the JSON.
 */
function clipDocument(sections: Record<SectionName, Body>, maxBytes: number, fullResult: string | undefined): string {
  const where = fullResult !== undefined && utf8Length(fullResult) <= 160 ? inlineCode(fullResult) : 'rerun with `--json`';
  const packageMarker = `…[result clipped to fit ${maxBytes} bytes -- full result: ${where}]`;
  const fixed = utf8Length(assemble(Object.fromEntries(SECTION_ORDER.map((name) => [name, []])) as unknown as Record<SectionName, Body>)) + utf8Length(packageMarker) + 1;
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
