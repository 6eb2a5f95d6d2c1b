/**
 * The self-teaching text for an agent that has never used headspace. It lives
 * in core so every face can offer it (the CLI's `learn` verb, the MCP
 * server's `learn` prompt) without one adapter importing another. Each face
 * passes its own surface (CLI verbs, MCP tools) as `verbs`; core knows
 * nothing of either.
 */
import { SECTION_ORDER } from './result/result-package.js';
import { CATEGORY_MEANINGS, EXIT_CODES, exitCodeMeanings } from './status.js';

export interface LearnVerb {
  name: string;
  summary: string;
}

export interface LearnData {
  name: 'headspace';
  purpose: string;
  workflow: string[];
  rules: string[];
  result_sections: typeof SECTION_ORDER;
  /** "0"…"9" → what the code means (the seed's shape, grown by 9 inconclusive). */
  exit_codes: Record<string, string>;
  /** Category name → code. */
  exit_code_names: typeof EXIT_CODES;
  verbs: LearnVerb[];
}

/**
 * What differs between faces: the workflow in the face's own calls (CLI
 * commands, MCP tool calls) and the rules that name them. Each face passes
 * its own (cli/learn-surface.ts, the MCP server's), so a model is never told
 * a CLI flag it cannot use (#12 item 22) and core writes no face's syntax.
 */
export interface LearnSurface {
  workflow: LearnLine[];
  /** Rules of this face, after the shared ones. */
  rules: LearnLine[];
}

/**
 * A line about one verb is shown only where that verb is offered: `mcp
 * --tools core` serves no batch tool, and a prompt describing batch's exit
 * codes would send a model to a tool it cannot call.
 */
export type LearnLine = string | { text: string; verb: string };

const SHARED_RULES: readonly LearnLine[] = [
  'Read the status and the exit code first; they agree one to one.',
  'Never put a secret on the command line: argv is recorded verbatim.',
  'Every limit says whether it is enforced or only measured.',
  'Exit 0 is not task success: give a run checks (verify commands, expected files, expected output) and read its verification verdict; inconclusive (exit 9) means a check could not answer, not that the job passed.',
  {
    verb: 'batch',
    text: "A batch (several jobs joined by all, allSettled, race, any or quorum) exits with its join's status: 0 when it succeeded, 6 for a failed join (any_exhausted: no job of an any batch succeeded; a quorum out of reach), else the status of the job that decided; the losers are stopped and named.",
  },
];

/** The lines whose verb (if they name one) is among `verbs`, as text. */
function offeredLines(lines: readonly LearnLine[], verbs: readonly LearnVerb[]): string[] {
  const offered = new Set(verbs.map((v) => v.name));
  return lines.flatMap((line) => (typeof line === 'string' ? [line] : offered.has(line.verb) ? [line.text] : []));
}

export function learnData(verbs: readonly LearnVerb[], surface: LearnSurface): LearnData {
  return {
    name: 'headspace',
    purpose: 'Run commands in an isolated, budgeted workspace and get back a compact, evidence-bearing result package instead of a raw log.',
    workflow: offeredLines(surface.workflow, verbs),
    rules: offeredLines([...SHARED_RULES, ...surface.rules], verbs),
    result_sections: SECTION_ORDER,
    exit_codes: exitCodeMeanings(),
    exit_code_names: EXIT_CODES,
    verbs: verbs.map((v) => ({ name: v.name, summary: v.summary })),
  };
}

export function learnText(verbs: readonly LearnVerb[], surface: LearnSurface): string {
  const d = learnData(verbs, surface);
  return [
    '# Learning headspace',
    '',
    d.purpose,
    '',
    '## Workflow',
    ...d.workflow.map((w) => `- ${w}`),
    '',
    '## Rules',
    ...d.rules.map((r) => `- ${r}`),
    '',
    '## Result package',
    `Nine sections, always in this order: ${d.result_sections.join(', ')}.`,
    '',
    '## Exit codes',
    ...Object.entries(EXIT_CODES).map(([c, n]) => `- ${n} ${c}: ${CATEGORY_MEANINGS[c as keyof typeof CATEGORY_MEANINGS]}`),
    '',
    '## Verbs',
    ...d.verbs.map((v) => `- ${v.name}: ${v.summary}`),
    '',
  ].join('\n');
}
