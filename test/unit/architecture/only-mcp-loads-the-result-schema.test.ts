/**
 * The result schema (core/result/result-schema.ts) loads zod, which the CLI
 * must not pay for at every start: outside mcp/ it is imported with
 * `import type` / `export type` only, which TypeScript erases. This is the
 * fast, source-level half of the check; test/e2e/cli/a-cli-run-never-loads-zod
 * watches the built CLI really run.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Import and export statements naming result-schema.js that TypeScript keeps at run time. */
function valueImportsOfSchema(file: string): string[] {
  const statements = readFileSync(file, 'utf8').match(/^(?:import|export)\b[^;]*?from\s*'[^']*result-schema\.js'/gms) ?? [];
  const dynamic = readFileSync(file, 'utf8').match(/import\(\s*'[^']*result-schema\.js'\s*\)/g) ?? [];
  return [...statements.filter((s) => !/^(?:import|export)\s+type\b/.test(s)), ...dynamic];
}

describe('the result schema', () => {
  it('is imported as a value only by the MCP server', () => {
    const offenders = sources(join(REPO, 'src'))
      .filter((file) => !relative(join(REPO, 'src'), file).startsWith('mcp/'))
      .flatMap((file) => valueImportsOfSchema(file).map((s) => `${relative(REPO, file)}: ${s.split('\n')[0]}`));
    expect(offenders).toEqual([]);
  });
});
