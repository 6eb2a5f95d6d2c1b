import { EngineError } from '../core/errors.js';
import { RESULT_SCHEMA_VERSION, SECTION_ORDER } from '../core/result/result-package.js';
import { SCHEMA_VERSION } from '../core/store/migrations.js';
import { CATEGORY_MEANINGS, EXIT_CODES } from '../core/status.js';
import { COMMON_OPTIONS, TOPICS, VERBS } from './catalog.js';
import type { CliOutcome } from './main.js';
import { packageVersion } from '../core/version.js';


/** learn, explain, cli overview, version: data about the CLI itself, no engine needed. */
export function introspect(verb: string, args: string[], _opts: Record<string, unknown>): CliOutcome {
  switch (verb) {
    case 'version': {
      const version = packageVersion();
      return { kind: 'document', text: `headspace ${version}\n`, json: { name: 'headspace', version, result_schema_version: RESULT_SCHEMA_VERSION, state_schema_version: SCHEMA_VERSION } };
    }
    case 'cli': {
      if (args[0] !== 'overview') throw new EngineError('BAD_ARGUMENT', `unknown cli topic '${String(args[0]).slice(0, 40)}'`, { hint: 'run `headspace cli overview`' });
      return { kind: 'document', text: overviewText(), json: overviewData() };
    }
    case 'explain':
      return explain(args);
    case 'learn':
      return { kind: 'document', text: learnText(), json: learnData() };
    default:
      throw new EngineError('UNKNOWN_VERB', `unknown verb '${verb}'`);
  }
}

function overviewData() {
  return {
    name: 'headspace',
    version: packageVersion(),
    common_options: COMMON_OPTIONS.map((o) => ({ flags: o.flags, description: o.description })),
    verbs: VERBS.map((v) => ({ name: v.name, group: v.group, args: v.args, summary: v.summary, options: v.options.map((o) => ({ flags: o.flags, description: o.description, repeatable: o.repeatable === true })) })),
    exit_codes: EXIT_CODES,
  };
}

function overviewText(): string {
  const lines = ['# headspace CLI', '', 'Every verb takes --json, --provider and --max-result-bytes.', ''];
  for (const v of VERBS) {
    lines.push(`## ${v.name} ${v.args.join(' ')}`.trimEnd(), v.summary);
    for (const o of v.options) lines.push(`- ${o.flags}: ${o.description}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

function explain(path: string[]): CliOutcome {
  const key = path.join(' ');
  const verb = VERBS.find((v) => v.name === key || (v.name === 'cli' && key === 'cli overview'));
  if (verb) {
    const text = [`# headspace ${verb.name} ${verb.args.join(' ')}`.trimEnd(), '', verb.summary, '', verb.explain, '', 'Options:', ...[...verb.options, ...COMMON_OPTIONS].map((o) => `  ${o.flags}  ${o.description}`), ''].join('\n');
    return { kind: 'document', text, json: { path: key, summary: verb.summary, explain: verb.explain, args: verb.args, options: verb.options } };
  }
  const topic = TOPICS[key];
  if (topic) return { kind: 'document', text: `# ${key}\n\n${topic}\n`, json: { path: key, explain: topic } };
  throw new EngineError('BAD_ARGUMENT', `nothing to explain at '${key.slice(0, 60)}'`, { hint: `try one of: ${[...VERBS.map((v) => v.name), ...Object.keys(TOPICS)].join(', ')}` });
}

function learnData() {
  return {
    name: 'headspace',
    purpose: 'Run commands in an isolated, budgeted workspace and get back a compact, evidence-bearing result package instead of a raw log.',
    workflow: [
      'headspace create --purpose "…"            → a workspace id (closed policy: no network, 512 MiB, 1 CPU, 128 pids, 300 s)',
      'headspace run <workspace> <command…>     → a bounded result: status, key findings, an excerpt of the output chosen for you',
      'headspace logs <job> --grep REGEX | --tail N | --lines A:B   → drill into the output without loading it all',
      'headspace inspect <job> --logs           → everything the job printed (only when you really need it)',
      'headspace stop <workspace> --apply       → end a running job (from any process)',
      'headspace destroy <workspace>            → remove it',
    ],
    rules: [
      'Read the status and the exit code first; they agree one to one.',
      'Never put a secret on the command line: argv is recorded verbatim.',
      'Every limit says whether it is enforced or only measured.',
      'Add --json for the same result as one JSON document.',
    ],
    result_sections: SECTION_ORDER,
    exit_codes: EXIT_CODES,
    exit_code_meanings: CATEGORY_MEANINGS,
    verbs: VERBS.map((v) => ({ name: v.name, summary: v.summary })),
  };
}

function learnText(): string {
  const d = learnData();
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
