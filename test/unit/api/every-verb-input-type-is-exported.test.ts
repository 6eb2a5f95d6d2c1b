/**
 * Every verb's input type is part of the library surface: the `…Input`
 * interface of each verb the table declares (core/verb-table/verb-table.ts
 * names each handler's module) is re-exported (as a type) from
 * src/api/index.ts, so a caller can type what it passes (#12 item 15).
 * Types vanish at run time, so the sources themselves are compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

describe('verb input types', () => {
  it('are each exported from the library entry', () => {
    const table = ['verb-table.ts', 'verbs-snapshots.ts'].map((file) => readFileSync(join(REPO, 'src', 'core', 'verb-table', file), 'utf8')).join('\n');
    const modules = [...table.matchAll(/import\('\.\.\/verbs\/([a-z-]+)\.js'\)/g)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThanOrEqual(15);
    const taken = modules.flatMap((module) =>
      [...readFileSync(join(REPO, 'src', 'core', 'verbs', `${module}.ts`), 'utf8').matchAll(/export interface (\w+Input) /g)].map((m) => m[1]!),
    );
    expect(taken.length).toBeGreaterThanOrEqual(14);
    const api = readFileSync(join(REPO, 'src', 'api', 'index.ts'), 'utf8');
    const exported = new Set([...api.matchAll(/export type \{ ([^}]*) \}/g)].flatMap((m) => m[1]!.split(',').map((n) => n.trim())));
    expect(taken.filter((name) => !exported.has(name))).toEqual([]);
  });
});
