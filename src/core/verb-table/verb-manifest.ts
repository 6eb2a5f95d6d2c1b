/**
 * The verb table as data a process can read without zod: each verb's facts
 * and its input schema as JSON Schema (draft-7). `npm run build` writes it
 * next to this module (scripts/build-verb-manifest.mjs), so the CLI and the
 * engine's unknown-key check start without loading zod (about 45 ms of every
 * CLI call); where it has not been built (tests run from source) it is made
 * from the table on first use. A test checks the built file equals the table.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { VERB_TABLE } from './verb-table.js';
import type * as zod from 'zod';
import type { Zod, VerbEffect } from './define-verb.js';

/** The subset of JSON Schema the verbs' inputs use. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  [keyword: string]: unknown;
}

export interface VerbManifestEntry {
  name: string;
  method: string;
  group: 'lifecycle' | 'operator';
  effect: VerbEffect;
  idempotent: boolean;
  title: string;
  summary: string;
  description: string;
  input: JsonSchema;
  runtimeKeys: string[];
  mcpOmits: string[];
  onMcp: boolean;
}

export type VerbManifest = VerbManifestEntry[];

const BUILT = new URL('./verb-manifest.json', import.meta.url);

let cached: VerbManifest | null = null;

/**
 * The manifest: the built file when there is one, else made from the table.
 * Synchronous, so the CLI can build its commands at load: the fallback takes
 * zod through require (its CommonJS build), which only tests and tools
 * running from source pay for.
 */
export function loadVerbManifest(): VerbManifest {
  if (cached) return cached;
  let text: string | null = null;
  try {
    text = readFileSync(BUILT, 'utf8');
  } catch {
    text = null; // not built: tests and tools running from source
  }
  cached = text !== null ? (JSON.parse(text) as VerbManifest) : buildVerbManifest((createRequire(import.meta.url)('zod') as typeof zod).z, VERB_TABLE);
  return cached;
}

/** One verb's entry by its name (CLI verb and tool name). */
export function manifestEntry(name: string): VerbManifestEntry | undefined {
  return loadVerbManifest().find((entry) => entry.name === name);
}

/** Pure: the table's facts and each input's JSON Schema (draft-7, as MCP clients read it). */
export function buildVerbManifest(
  z: Zod,
  table: ReadonlyArray<{
    name: string;
    method: string;
    group: 'lifecycle' | 'operator';
    effect: VerbEffect;
    idempotent: boolean;
    title: string;
    summary: string;
    description: string;
    input: (z: Zod) => zod.ZodObject;
    runtimeKeys?: readonly string[];
    mcpOmits?: readonly string[];
    onMcp?: boolean;
  }>,
): VerbManifest {
  return table.map((verb) => ({
    name: verb.name,
    method: verb.method,
    group: verb.group,
    effect: verb.effect,
    idempotent: verb.idempotent,
    title: verb.title,
    summary: verb.summary,
    description: verb.description,
    input: inputJsonSchema(z, verb.input(z)),
    runtimeKeys: [...(verb.runtimeKeys ?? [])],
    mcpOmits: [...(verb.mcpOmits ?? [])],
    onMcp: verb.onMcp !== false,
  }));
}

/** Draft-7 JSON Schema of an input, without `$schema` and without empty `additionalProperties` objects (some clients mishandle them). */
export function inputJsonSchema(z: Zod, schema: zod.ZodObject): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return dropEmptyAdditionalProperties(json) as JsonSchema;
}

function dropEmptyAdditionalProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropEmptyAdditionalProperties);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    out[key] = dropEmptyAdditionalProperties(value);
  }
  return out;
}
