import { EngineError } from '../core/errors.js';
import { RESULT_SCHEMA_VERSION } from '../core/result/result-package.js';
import { SCHEMA_VERSION } from '../core/store/migrations.js';
import { EXIT_CODES, exitCodeMeanings } from '../core/status.js';
import { learnData, learnText } from '../core/learn.js';
import { CLI_LEARN_SURFACE } from './learn-surface.js';
import { COMMON_OPTIONS, TOPICS, VERBS } from './catalog.js';
import { explainManifest } from './explain-manifest.js';
import type { CliOutcome } from './main.js';
import { packageVersion } from '../core/version.js';

/** learn, explain, cli overview, version: data about the CLI itself, no engine needed. */
export function introspect(verb: string, args: string[], _opts: Record<string, unknown>): CliOutcome {
  switch (verb) {
    case 'version': {
      const version = packageVersion();
      return {
        kind: 'document',
        text: `headspace ${version}\nresult schema ${RESULT_SCHEMA_VERSION}\nstate schema ${SCHEMA_VERSION}\n`,
        json: { name: 'headspace', version, result_schema_version: RESULT_SCHEMA_VERSION, state_schema_version: SCHEMA_VERSION },
      };
    }
    case 'cli': {
      if (args[0] !== 'overview')
        throw new EngineError('BAD_ARGUMENT', `unknown cli topic '${String(args[0]).slice(0, 40)}'`, { hint: 'run `headspace cli overview`' });
      return { kind: 'document', text: overviewText(), json: overviewData() };
    }
    case 'explain':
      return explain(args);
    case 'learn':
      return { kind: 'document', text: learnText(VERBS, CLI_LEARN_SURFACE), json: learnData(VERBS, CLI_LEARN_SURFACE) };
    default:
      throw new EngineError('UNKNOWN_VERB', `unknown verb '${verb}'`, { hint: 'run `headspace --help` for the verbs' });
  }
}

function overviewData() {
  return {
    name: 'headspace',
    version: packageVersion(),
    common_options: COMMON_OPTIONS.map((o) => ({ flags: o.flags, description: o.description })),
    verbs: VERBS.map((v) => ({
      name: v.name,
      group: v.group,
      args: v.args,
      summary: v.summary,
      options: v.options.map((o) => ({ flags: o.flags, description: o.description, repeatable: o.repeatable === true })),
    })),
    exit_codes: exitCodeMeanings(),
    exit_code_names: EXIT_CODES,
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
  // `explain` alone is the question "what can you explain?": answer it rather than refuse.
  if (key === '') return explainIndex();
  const verb = VERBS.find((v) => v.name === key || (v.name === 'cli' && key === 'cli overview'));
  if (verb) {
    const text = [
      `# headspace ${verb.name} ${verb.args.join(' ')}`.trimEnd(),
      '',
      verb.summary,
      '',
      verb.explain,
      '',
      'Options:',
      ...[...verb.options, ...COMMON_OPTIONS].map((o) => `  ${o.flags}  ${o.description}`),
      '',
    ].join('\n');
    return { kind: 'document', text, json: { path: key, summary: verb.summary, explain: verb.explain, args: verb.args, options: verb.options } };
  }
  const topic = TOPICS[key];
  // The manifest's keys come from its published schema, so they cannot drift from what prepare accepts.
  if (topic && key === 'manifest') {
    const text = explainManifest(topic);
    return { kind: 'document', text: `# ${key}\n\n${text}`, json: { path: key, explain: text } };
  }
  if (topic) return { kind: 'document', text: `# ${key}\n\n${topic}\n`, json: { path: key, explain: topic } };
  throw new EngineError('BAD_ARGUMENT', `nothing to explain at '${key.slice(0, 60)}'`, {
    hint: `try one of: ${[...VERBS.map((v) => v.name), ...Object.keys(TOPICS)].join(', ')}`,
  });
}

function explainIndex(): CliOutcome {
  const verbs = VERBS.map((v) => ({ name: v.name, summary: v.summary }));
  const topics = Object.keys(TOPICS);
  const text = [
    '# headspace explain <verb or topic>',
    '',
    'Topics:',
    ...topics.map((t) => `  ${t}`),
    '',
    'Verbs:',
    ...verbs.map((v) => `  ${v.name}  ${v.summary}`),
    '',
  ].join('\n');
  return { kind: 'document', text, json: { path: '', topics, verbs } };
}
