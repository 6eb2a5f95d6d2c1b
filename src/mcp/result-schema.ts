/**
 * The result package's schema as MCP serves it, derived from the one schema
 * in core/result/result-schema.ts (nothing is restated here).
 *
 * Two uses: the whole JSON form, every field described, is served once as a
 * resource (RESULT_SCHEMA_URI), and every tool's outputSchema is the compact
 * `TOOL_OUTPUT_JSON_SCHEMA` (the nine sections and their JSON types, no
 * per-field prose): the whole schema repeated in 13 tools was 82 KB of every
 * agent's `tools/list` (#13).
 */
import { z } from 'zod';
import { ResultPackageJsonSchema } from '../core/result/result-schema.js';

/** The package as clients receive it (null fields left out, objects loose). */
export const ResultPackageSchema = ResultPackageJsonSchema;

/**
 * The compact output schema every tool declares: each section, required, with
 * its JSON type and nothing else (about 400 bytes). The whole schema is the
 * resource at RESULT_SCHEMA_URI.
 */
export const TOOL_OUTPUT_JSON_SCHEMA = compactSchemaOf(ResultPackageSchema);

export const RESULT_SCHEMA_URI = 'headspace://schema/result-package';

function compactSchemaOf(schema: z.ZodObject): { type: 'object'; properties: Record<string, { type: string }>; required: string[] } {
  const whole = z.toJSONSchema(schema, { target: 'draft-7', io: 'output' }) as { properties: Record<string, { type: string }>; required: string[] };
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(whole.properties).map(([name, property]) => [name, { type: property.type }])),
    required: [...whole.required],
  };
}
