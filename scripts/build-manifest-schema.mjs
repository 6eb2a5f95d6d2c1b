// Writes docs/headspace.workspace.v1.schema.json: the JSON Schema of the
// workspace manifest (headspace.yml), generated from its zod schema in
// src/core/manifest/manifest-schema.ts. Run after tsc; the test
// test/unit/core/manifest/the-published-json-schema-is-current.test.ts
// fails when the published file is stale.
import { writeFileSync } from 'node:fs';

const { manifestJsonSchema } = await import('../dist/core/manifest/manifest-schema.js');
const target = new URL('../docs/headspace.workspace.v1.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
