/**
 * The library's inputs are plain objects from JavaScript callers, where a
 * misspelt key (`budget: { memory: 1 }`) used to be ignored silently and the
 * default applied (#12 item 15). The engine refuses any key the verb's input
 * schema (the verb table, read through its manifest) does not name, at any
 * depth the schema describes, naming the valid ones — as the MCP tools'
 * strict schemas do. Wrong types and values are the verbs' own checks, which
 * carry a hint for the value.
 */
import { EngineError } from './errors.js';
import type { JsonSchema, VerbManifestEntry } from './verb-table/verb-manifest.js';

/** Refuses (BAD_ARGUMENT) any key of a verb's input, or of its nested objects, that the verb does not take. */
export function refuseUnknownKeys(verb: VerbManifestEntry, input: unknown): void {
  check(verb.method, '', input, verb.input, verb.runtimeKeys);
}

function check(verb: string, prefix: string, value: unknown, schema: JsonSchema | undefined, extraKeys: readonly string[] = []): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => check(verb, `${prefix.slice(0, -1)}[${i}].`, item, schema.items));
    return;
  }
  if (!isObject(value) || schema.properties === undefined) return; // wrong shapes are the verb's own checks to refuse
  const allowed = [...Object.keys(schema.properties), ...extraKeys];
  if (schema.additionalProperties === false) {
    const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) {
      const shown = unknown
        .slice(0, 5)
        .map((k) => `'${prefix}${k.slice(0, 40)}'`)
        .join(', ');
      throw new EngineError('BAD_ARGUMENT', `${verb} does not take ${shown}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}; nothing was done`, {
        hint: `valid keys${prefix === '' ? '' : ` of ${prefix.slice(0, -1).replace(/\[\d+\]$/, '[]')}`}: ${allowed.join(', ')}`,
      });
    }
  }
  for (const [key, child] of Object.entries(schema.properties)) {
    if (Object.hasOwn(value, key)) check(verb, `${prefix}${key}.`, value[key], child);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
