/**
 * Every verb's input type is part of the library surface: each `…Input`
 * interface the engine's verbs take is re-exported (as a type) from
 * src/api/index.ts, so a caller can type what it passes (#12 item 15).
 * Types vanish at run time, so the sources themselves are compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

describe('verb input types', () => {
  it('are each exported from the library entry', () => {
    const engine = readFileSync(join(REPO, 'src', 'core', 'engine.ts'), 'utf8');
    const taken = [...engine.matchAll(/import type \{ ([^}]*) \} from '\.\/verbs\//g)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())).filter((n) => n.endsWith('Input'));
    expect(taken.length).toBeGreaterThanOrEqual(13);
    const api = readFileSync(join(REPO, 'src', 'api', 'index.ts'), 'utf8');
    const exported = new Set([...api.matchAll(/export type \{ ([^}]*) \}/g)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())));
    expect(taken.filter((name) => !exported.has(name))).toEqual([]);
  });
});
