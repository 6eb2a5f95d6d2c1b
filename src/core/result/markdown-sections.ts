/**
 * How the quieter sections of a result read in markdown: resource usage,
 * provenance (with the policy), artifacts. Context economy (#13) decides
 * their shape: nothing is printed twice (an id or command already in the
 * summary is not repeated), nothing the reader cannot use is printed (no
 * `(none)` rows, no exit-code line beside the key finding that says it), and
 * the policy is shown whole only where a reader decides on it (`create`,
 * `inspect`); elsewhere it is one line naming what differs from the closed
 * defaults and the policy's digest. JSON keeps every field.
 *
 * `detail` is how much a tight byte bound leaves: `full` as described,
 * `compact` drops the environment and input lines and shows the policy in one
 * line everywhere, `minimal` keeps only who produced the result and the
 * policy digest. render-markdown.ts steps down through them before it cuts
 * any evidence.
 */
import { describeLimit } from '../policy/effective-policy.js';
import { defaultPolicy, type LimitName } from '../policy/policy.js';
import type { ArtifactEntry, LimitSummary, ResultPackage } from './result-package.js';
import { shellQuote } from './shell-quote.js';
import { cleanInline, clipLine } from './sanitize-text.js';

export type Detail = 'full' | 'compact' | 'minimal';

/** A command line is shown on one line, clipped past this even when there is room. */
export const COMMAND_MAX_BYTES = 240;
/** Digests are shown to this many hex digits in markdown; JSON has them whole. */
const SHORT_DIGEST_HEX = 8;
/** Verbs whose reader is deciding about the policy itself: they show every limit with its label. */
const WHOLE_POLICY_VERBS = new Set(['create', 'inspect']);

/** Usage in one line, known figures only; output bytes are left to the run's key finding. */
export function renderUsage(pkg: ResultPackage, detail: Detail): string[] {
  const usage = pkg.resource_usage;
  const parts: string[] = [];
  if (usage.wall_time_seconds !== null) parts.push(`wall ${usage.wall_time_seconds} s`);
  if (detail !== 'minimal') {
    if (usage.cpu_seconds !== null) parts.push(`cpu ${usage.cpu_seconds} s`);
    if (usage.max_memory_bytes !== null)
      parts.push(
        `peak memory ${humanBytes(usage.max_memory_bytes)}${usage.max_memory_scope === 'workspace' ? " (the workspace's, shared with jobs beside it)" : ''}`,
      );
    if (usage.peak_pids !== null && usage.peak_pids > 1) parts.push(`peak pids ${usage.peak_pids}`);
    if (usage.storage_bytes !== null && usage.storage_bytes > 0) parts.push(`storage ${humanBytes(usage.storage_bytes)}`);
    if (usage.output_bytes !== null && pkg.provenance.verb !== 'run') parts.push(`output ${humanBytes(usage.output_bytes)}`);
  }
  return parts.length === 0 ? [] : [`- ${parts.join(', ')}`];
}

export interface ProvenanceView {
  detail: Detail;
  /** Budget for one free-text value. */
  field: number;
}

/** Provenance lines: who made the result, about what, and under which policy. */
export function renderProvenance(pkg: ResultPackage, view: ProvenanceView): string[] {
  const prov = pkg.provenance;
  const summary = pkg.outcome_summary;
  const value = (text: string) => clipLine(cleanInline(text), view.field);
  // An id the summary already names costs the reader nothing to find: do not repeat it.
  const unsaid = (label: string, id: string | null) => (id === null || id === '' || summary.includes(id) ? null : `${label} ${value(id)}`);
  const where = [unsaid('workspace', prov.workspace_id), unsaid('job', prov.job_id)].filter((x): x is string => x !== null);
  const backend = [prov.provider, prov.profile]
    .filter((x): x is string => x !== null && x !== '')
    .map(value)
    .join('/');
  // The result schema version is for parsers of the JSON rendering, which carries it; markdown readers need who and where.
  const on = backend === '' ? '' : ` on ${backend}`;
  const tail = [...where];
  if (view.detail === 'full' && prov.environment_digest !== null) tail.push(`env ${shortDigest(value(prov.environment_digest))}`);
  const lines = [`- ${prov.verb} by headspace ${value(prov.headspace_version)}${on}${tail.length ? `, ${tail.join(', ')}` : ''}`];
  if (prov.command !== null && view.detail !== 'minimal') {
    const command = shellJoin(prov.command);
    if (!summary.includes(command)) lines.push(`- command: ${clipLine(command, Math.min(COMMAND_MAX_BYTES, view.field))}`);
  }
  if (prov.cwd !== undefined && view.detail !== 'minimal') lines.push(`- working directory: ${value(prov.cwd)}`);
  const policy = renderPolicy(
    prov.policy_summary,
    prov.policy_digest,
    view.detail === 'minimal' ? 'count' : WHOLE_POLICY_VERBS.has(prov.verb) && view.detail === 'full' ? 'whole' : 'changes',
  );
  if (policy !== undefined) lines.push(policy);
  if (view.detail === 'full') {
    // Whole digests: an input's digest is evidence a reader may check, not a label to tell things apart.
    for (const input of prov.inputs)
      lines.push(`- input ${value(input.destination)}: ${input.size_bytes} bytes, sha256:${input.sha256.replace(/^sha256:/, '')}`);
  } else if (prov.inputs.length > 0) {
    lines.push(`- inputs: ${prov.inputs.length}`);
  }
  return lines;
}

/**
 * The policy on one line. `whole`: every limit with its label. `changes`:
 * only the limits that differ from the closed defaults; `count`: how many
 * differ. Both then say whether all are enforced (the warnings section names
 * each measured one) and give the digest that tells two policies apart.
 */
export function renderPolicy(limits: readonly LimitSummary[], digest: string | undefined, shape: 'whole' | 'changes' | 'count'): string | undefined {
  if (limits.length === 0) return digest === undefined ? undefined : `- policy: ${shortDigest(digest)}`;
  if (shape === 'whole') return `- policy: ${limits.map((limit) => `${cleanInline(limit.name)} ${cleanInline(limit.value)} ${enforcement(limit)}`).join('; ')}`;
  const defaults = defaultPolicy();
  const changed = limits.filter((limit) => !isDefault(limit, defaults));
  const listed = changed.map((limit) => `${cleanInline(limit.name)} ${cleanInline(limit.value)}`).join(', ');
  const what =
    changed.length === 0
      ? 'default closed'
      : shape === 'count'
        ? `${changed.length} limit${changed.length === 1 ? '' : 's'} changed from the closed defaults`
        : `${listed}; otherwise default closed`;
  // Grouped by label; a simulated provider (every provider limit simulated) reads `limits simulated`:
  // the compact line stays as short as `all enforced`, and create and JSON label each limit.
  const notEnforced = [...new Set(limits.filter((limit) => limit.label !== 'enforced').map((limit) => limit.label))].map((label) => {
    const named = limits.filter((limit) => limit.label === label);
    const allOfProvider = label === 'simulated' && named.length === limits.filter((limit) => limit.by === 'provider').length;
    return allOfProvider ? 'limits simulated' : `${named.map((limit) => limit.name).join(', ')} ${label}`;
  });
  const labels = notEnforced.length === 0 ? 'all enforced' : notEnforced.map(cleanInline).join(', ');
  return `- policy: ${what}, ${labels}${digest === undefined ? '' : ` (${shortDigest(digest)})`}`;
}

function isDefault(limit: LimitSummary, defaults: ReturnType<typeof defaultPolicy>): boolean {
  try {
    return describeLimit(limit.name as LimitName, defaults) === limit.value;
  } catch {
    return false;
  }
}

/** `(enforced by provider)`, `(measured by engine)`; `(measured)` when nothing applies it. */
function enforcement(limit: LimitSummary): string {
  return limit.by === 'none' ? `(${limit.label})` : `(${limit.label} by ${limit.by})`;
}

/** `sha256:01234567`: enough to tell environments and policies apart by eye; JSON has the whole digest. */
export function shortDigest(digest: string): string {
  const match = /^(sha256:)?([0-9a-f]{16,})$/.exec(digest);
  return match === null ? digest : `sha256:${match[2]!.slice(0, SHORT_DIGEST_HEX)}`;
}

/** One line per artifact: name, purpose, what it is and where it went. */
export function renderArtifact(artifact: ArtifactEntry, field: (text: string) => string): string {
  const facts = [artifact.media_type, artifact.size_bytes === null ? null : `${artifact.size_bytes} bytes`, artifact.digest]
    .filter((x): x is string => x !== null && x !== '')
    .map(field);
  const where = artifact.reference === null ? 'not exported' : `exported to ${field(artifact.reference)}`;
  return `- ${field(artifact.name)}: ${field(artifact.purpose)} (${[...facts, where].join(', ')})`;
}

export function humanBytes(n: number): string {
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

/** argv as one pasteable POSIX shell line: bare words stay bare, others are quoted (controls and bidi characters as $'…' escapes, see context.ts). */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

export { shellQuote };
