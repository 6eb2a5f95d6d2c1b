/**
 * The engine verbs' CLI surface, built from the verb table's manifest and
 * the per-verb CLI shapes (verb-adapters.ts): each input key is a positional
 * argument, a flag of its own (`--kebab-key`, typed and ranged by its
 * schema), or filled by the adapter. Pure: no commander here, so `cli
 * overview`, `explain` and `--help` read the same specs commander is built
 * from.
 */
import { EngineError } from '../core/errors.js';
import type { JsonSchema, VerbManifestEntry } from '../core/verb-table/verb-manifest.js';
import type { OptionSpec, VerbSpec } from './catalog.js';
import type { CliIo } from './io.js';
import { withCallerPaths } from './caller-paths.js';
import { CLI_ADAPTERS, type FlagOverride, type Opts } from './verb-adapters.js';

/** An option that fills an input key, with the parse from its text. */
export interface InputOption extends OptionSpec {
  key: string;
  /** The schema requires it (export's `to`): refused before the engine opens when missing. */
  required: boolean;
  parse: (raw: unknown, flag: string, io: CliIo) => unknown;
  /** The values the schema allows (batch's --strategy), named when the flag is missing. */
  choices?: string[];
}

export interface EngineVerbSpec extends VerbSpec {
  /** The verb table's name (the MCP tool's, a suggested call's): `events-claim` where `name` is the CLI's `events claim`. */
  tableName: string;
  method: string;
  /** The input key each positional argument fills, in order. */
  argKeys: string[];
  inputOptions: InputOption[];
  /** The input has a `provider` key, filled from the common --provider. */
  takesProvider: boolean;
  /** How an error names an input no flag of its own fills (the adapter's inputWords). */
  inputWords: Readonly<Record<string, string>>;
}

/** The CLI spec of every engine verb in the manifest, in the table's order. */
export function engineVerbSpecs(manifest: readonly VerbManifestEntry[]): EngineVerbSpec[] {
  return manifest.map((entry) => {
    const adapter = CLI_ADAPTERS[entry.name];
    if (!adapter) throw new Error(`the verb table's ${entry.name} has no CLI shape in cli/verb-adapters.ts`);
    const positional = new Set(adapter.args.map(([, key]) => key));
    const inputOptions: InputOption[] = [];
    for (const [key, schema] of Object.entries(entry.input.properties ?? {})) {
      // A verb's `provider` is the --provider every verb takes (COMMON_OPTIONS).
      if (positional.has(key) || key === 'provider') continue;
      const override = adapter.flags?.[key];
      if (override === null) continue;
      inputOptions.push({ ...inputOption(entry.name, key, schema, override), required: entry.input.required?.includes(key) === true });
    }
    return {
      name: adapter.words?.join(' ') ?? entry.name,
      tableName: entry.name,
      method: entry.method,
      args: adapter.args.map(([spec]) => spec),
      argKeys: adapter.args.map(([, key]) => key),
      group: entry.group,
      summary: entry.summary,
      options: [
        ...inputOptions.map(({ flags, description, repeatable }) => ({ flags, description, ...(repeatable ? { repeatable } : {}) })),
        ...(adapter.extra ?? []),
      ],
      inputOptions,
      takesProvider: entry.input.properties?.provider !== undefined,
      inputWords: adapter.inputWords ?? {},
      explain: adapter.explain,
    };
  });
}

/** The library input of one CLI call: positional arguments, flags, then what the adapter completes. */
export function inputFromArgv(spec: EngineVerbSpec, args: string[], opts: Opts, io: CliIo): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  spec.argKeys.forEach((key, i) => {
    const collects = spec.args[i]?.includes('...') === true;
    const value = collects ? args.slice(i) : args[i];
    if (value !== undefined) input[key] = value;
  });
  if (spec.takesProvider && opts.provider !== undefined) input.provider = String(opts.provider);
  for (const option of spec.inputOptions) {
    const attribute = attributeName(option.flags);
    if (opts[attribute] === undefined) continue;
    input[option.key] = option.parse(opts[attribute], longFlag(option.flags), io);
  }
  const adapter = CLI_ADAPTERS[spec.tableName];
  return withCallerPaths(spec.tableName, adapter?.complete ? adapter.complete(input, opts, io) : input, io);
}

function inputOption(verb: string, key: string, schema: JsonSchema, override: FlagOverride | undefined): Omit<InputOption, 'required'> {
  const kind = valueKind(schema);
  if (kind === 'object' && override?.parse === undefined)
    throw new Error(`${verb}'s ${key} is an object: cli/verb-adapters.ts must say how its flag is written`);
  const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const placeholder = kind === 'integer' || kind === 'number' ? '<n>' : '<value>';
  return {
    key,
    flags: override?.flags ?? (kind === 'boolean' ? flag : `${flag} ${placeholder}`),
    description: override?.description ?? (schema.description ?? '').replace(/^true to /, ''),
    ...((override?.repeatable ?? kind === 'strings') ? { repeatable: true } : {}),
    parse: (override?.parse as InputOption['parse'] | undefined) ?? parserFor(kind, schema),
    ...(Array.isArray(schema.enum) ? { choices: schema.enum.map(String) } : {}),
  };
}

type ValueKind = 'boolean' | 'integer' | 'number' | 'string' | 'strings' | 'object';

function valueKind(schema: JsonSchema): ValueKind {
  const type = typeof schema.type === 'string' ? schema.type : 'object';
  switch (type) {
    case 'boolean':
      return 'boolean';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'array':
      return schema.items?.type === 'string' ? 'strings' : 'object';
    default:
      return 'object';
  }
}

function parserFor(kind: ValueKind, schema: JsonSchema): InputOption['parse'] {
  switch (kind) {
    case 'boolean':
      return (raw) => raw === true;
    case 'integer':
      return (raw, flag) => parseWholeNumber(flag, String(raw), schema);
    case 'number':
      return (raw, flag) => parseNumber(flag, String(raw), schema);
    case 'strings':
      return (raw) => raw;
    case 'string':
    case 'object':
      return (raw) => String(raw);
  }
}

/** A whole number within the schema's range; the hint gives one that fits. */
export function parseWholeNumber(flag: string, raw: string, range: { minimum?: number; maximum?: number }): number {
  const min = range.minimum ?? 0;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || (range.maximum !== undefined && Number(raw) > range.maximum)) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `${flag} takes a whole number of at least ${min}${range.maximum === undefined ? '' : ` and at most ${range.maximum}`}, not '${raw.slice(0, 40)}'`,
      {
        hint: `for example ${flag} ${Math.max(min, 20)} (digits only: no sign, unit or fraction)`,
      },
    );
  }
  return Number(raw);
}

function parseNumber(flag: string, raw: string, range: JsonSchema): number {
  const value = Number(raw);
  const min = range.minimum ?? range.exclusiveMinimum ?? 0;
  const aboveMin = range.exclusiveMinimum !== undefined ? value > range.exclusiveMinimum : value >= min;
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value) || !aboveMin || (range.maximum !== undefined && value > range.maximum)) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `${flag} takes a number ${range.exclusiveMinimum !== undefined ? `above ${min}` : `of at least ${min}`}${range.maximum === undefined ? '' : ` and at most ${range.maximum}`}, not '${raw.slice(0, 40)}'`,
      {
        hint: `for example ${flag} ${Math.max(min, 5)}`,
      },
    );
  }
  return value;
}

function longFlag(flags: string): string {
  return flags.split(/[ ,]/)[0]!;
}

/** commander's attribute name for a flag: `--expect-sha256 <hex>` → `expectSha256`. */
export function attributeName(flags: string): string {
  return longFlag(flags)
    .slice(2)
    .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
