/**
 * `headspace explain manifest`: every key of a headspace.yml, read from the
 * published JSON Schema (docs/headspace.workspace.v1.schema.json, generated
 * from the zod schema and shipped in the package), so the list cannot drift
 * from what prepare accepts. A new user's manifest errors pointed at a docs/
 * path an npm install did not have, and no explain topic named the keys.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface SchemaNode {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  enum?: unknown[];
  const?: unknown;
  required?: string[];
}

/** Where the published schema is: the package's docs/, beside dist/. */
export const MANIFEST_SCHEMA_PATH = fileURLToPath(new URL('../../docs/headspace.workspace.v1.schema.json', import.meta.url));

function typeOf(node: SchemaNode): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (node.anyOf) return [...new Set(node.anyOf.map(typeOf))].join(' | ');
  if (node.type === 'array') return `list of ${node.items ? typeOf(node.items) : 'items'}`;
  if (Array.isArray(node.type)) return node.type.join(' | ');
  return node.type ?? 'value';
}

/** One line per key, depth-first, `path (type, required): description`. */
export function manifestKeyLines(schema: SchemaNode): string[] {
  const lines: string[] = [];
  const walk = (node: SchemaNode, path: string) => {
    const required = new Set(node.required ?? []);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const at = path === '' ? key : `${path}.${key}`;
      lines.push(`  ${at} (${typeOf(child)}${required.has(key) ? ', required' : ''}): ${child.description ?? ''}`.trimEnd());
      if (child.properties) walk(child, at);
      if (child.items?.properties) walk(child.items, `${at}[]`);
    }
  };
  walk(schema, '');
  return lines;
}

/** The topic's text: what the file is, then every key; the schema's path for tools that read JSON Schema. */
export function explainManifest(intro: string): string {
  let keys: string[];
  try {
    keys = manifestKeyLines(JSON.parse(readFileSync(MANIFEST_SCHEMA_PATH, 'utf8')) as SchemaNode);
  } catch (error) {
    keys = [`  (the schema could not be read at ${MANIFEST_SCHEMA_PATH}: ${(error as Error).message})`];
  }
  return `${intro}\n\nKeys:\n${keys.join('\n')}\n\nThe JSON Schema: ${MANIFEST_SCHEMA_PATH}\n`;
}
