/**
 * `headspace mcp --tools LIST`: serve only the named tools, or named sets of
 * them. Every connected agent pays for `tools/list` in its context before its
 * first call (about 47 KB for all 30 tools); one that only creates, runs,
 * reads, exports and destroys needs about half of that. A tool left out cannot be called
 * (the unknown-tool error names the ones served), and the learn prompt lists
 * only the served ones.
 *
 * The sets are the product's own grouping of the verbs; every tool is in at
 * least one of them besides `all` (a unit test holds a new verb to that).
 */
import { EngineError } from '../../core/errors.js';
import type { ToolSpec } from './tool-spec.js';

export const TOOL_SETS: Readonly<Record<string, readonly string[]>> = {
  /**
   * The everyday flow: create → put → run → read → declare, export and check
   * its receipt → destroy, with stop and wait for a run that was detached
   * (a new user's core could not export an undeclared file nor stop a
   * detached job, and results offered calls to both).
   */
  core: ['create', 'run', 'status', 'logs', 'inspect', 'ls', 'ls-files', 'put', 'declare', 'export', 'receipt', 'wait', 'stop', 'destroy'],
  /** Jobs that outlive the call (run with detach: true). */
  detach: ['wait', 'watch', 'stop'],
  /** Checkpoints, forks, and settling a fork's work back. */
  snapshots: ['checkpoint', 'restore', 'diff', 'fork', 'seal', 'settle'],
  batch: ['batch', 'batch-wait'],
  events: ['events-subscribe', 'events-claim', 'events-ack'],
  /** headspace.yml manifests. */
  manifests: ['plan', 'prepare'],
  /** Health, escape probes, receipts, declaring artifacts after the fact. */
  operator: ['doctor', 'probe', 'receipt', 'declare'],
};

/** The first set that serves `tool`, or undefined for a name no set holds (not a headspace tool). */
export function setServing(tool: string): string | undefined {
  return Object.entries(TOOL_SETS).find(([, members]) => members.includes(tool))?.[0];
}

/** The tools a --tools value names (comma-separated tool and set names, `all` for every tool), in the table's order. */
export function selectTools(all: readonly ToolSpec[], list: string): readonly ToolSpec[] {
  const known = new Set(all.map((t) => t.name));
  const wanted = new Set<string>();
  const unknown: string[] = [];
  for (const word of list.split(',').map((w) => w.trim())) {
    if (word === '') continue;
    if (word === 'all') for (const name of known) wanted.add(name);
    else if (Object.hasOwn(TOOL_SETS, word)) for (const name of TOOL_SETS[word]!) wanted.add(name);
    else if (known.has(word)) wanted.add(word);
    else unknown.push(word);
  }
  const sets = ['all', ...Object.keys(TOOL_SETS)].join(', ');
  if (unknown.length > 0) {
    throw new EngineError('BAD_ARGUMENT', `--tools names no tool or set ${unknown.map((w) => `'${w.slice(0, 40)}'`).join(', ')}`, {
      hint: `name sets (${sets}) or tools (${[...known].join(', ')}), comma-separated, e.g. --tools core,snapshots`,
    });
  }
  if (wanted.size === 0) {
    throw new EngineError('BAD_ARGUMENT', '--tools names no tool', { hint: `name sets (${sets}) or tools, comma-separated, e.g. --tools core` });
  }
  return all.filter((t) => wanted.has(t.name));
}
