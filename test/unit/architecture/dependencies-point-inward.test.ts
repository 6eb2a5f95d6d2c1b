/**
 * Dependencies point adapters → engine ← providers: nothing in src/core
 * imports from cli/, mcp/, api/ or providers/; providers import only core;
 * the CLI reaches the engine only through api/; and mcp/ imports only api/,
 * core/ and itself (never cli/ or a provider).
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

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!).filter((s) => s.startsWith('.'));
}

function resolved(file: string, spec: string): string {
  return relative(join(REPO, 'src'), join(file, '..', spec));
}

describe('dependency direction', () => {
  it('keeps core free of adapters and providers', () => {
    for (const file of sources(join(REPO, 'src', 'core'))) {
      for (const spec of importsOf(file)) expect(resolved(file, spec), `${relative(REPO, file)} imports ${spec}`).toMatch(/^core\//);
    }
  });

  it('lets providers import only core and themselves', () => {
    for (const file of sources(join(REPO, 'src', 'providers'))) {
      for (const spec of importsOf(file)) expect(resolved(file, spec), `${relative(REPO, file)} imports ${spec}`).toMatch(/^(core|providers)\//);
    }
  });

  it('lets the MCP server import only the api, core and itself', () => {
    for (const file of sources(join(REPO, 'src', 'mcp'))) {
      for (const spec of importsOf(file)) expect(resolved(file, spec), `${relative(REPO, file)} imports ${spec}`).toMatch(/^(api|core|mcp)\//);
    }
  });

  it('lets the CLI reach providers only through the api', () => {
    for (const file of sources(join(REPO, 'src', 'cli'))) {
      for (const spec of importsOf(file)) expect(resolved(file, spec), `${relative(REPO, file)} imports ${spec}`).not.toMatch(/^providers\//);
    }
  });
});
