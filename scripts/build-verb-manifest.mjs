// Writes dist/core/verb-table/verb-manifest.json: the verb table as data
// (each verb's facts and input JSON Schema), so the CLI and the engine's
// unknown-key check start without loading zod. Run after tsc.
import { writeFileSync } from 'node:fs';
import { z } from 'zod';

const { VERB_TABLE } = await import('../dist/core/verb-table/verb-table.js');
const { buildVerbManifest } = await import('../dist/core/verb-table/verb-manifest.js');
const target = new URL('../dist/core/verb-table/verb-manifest.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildVerbManifest(z, VERB_TABLE))}\n`);
