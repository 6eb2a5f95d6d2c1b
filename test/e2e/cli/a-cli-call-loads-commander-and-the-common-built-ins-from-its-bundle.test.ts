/**
 * The CLI bundle carries commander and requires the built-ins every call
 * loads anyway directly (#20, scripts/build-cli-bundle.mjs): commander
 * required from node_modules was resolved and compiled on each call, and the
 * built-ins through esbuild's stubs had their exports copied into each of
 * ~200 importing files. A call through the built bin therefore loads
 * no commander file from node_modules, and the bundle holds no stub of
 * node:fs or node:path, while a built-in only some verbs need (node:http)
 * still loads at first use: `ls` does not load it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome, REPO } from '../../helpers/cli.js';
import { moduleTrace } from '../../helpers/module-trace.js';

const { home, cleanup } = makeHome();
const trace = moduleTrace();
afterAll(async () => {
  await cleanup();
  trace.cleanup();
});

describe('a CLI call through the bundle', () => {
  it('parses its argv with the bundled commander, not the one in node_modules', () => {
    for (const args of [['ls'], ['ls', '--json'], ['explain', 'run']]) {
      const run = cli(home, args, trace.env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const modules = trace.modules();
    // The trace covers the bundle's loader, and a package the bundle still requires (better-sqlite3)…
    expect(modules.some((m) => m.endsWith('/bin/load-cli-bundle.cjs'))).toBe(true);
    expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    // …and no file of commander's.
    expect(modules.filter((m) => m.includes('/node_modules/commander/'))).toEqual([]);
    // A built-in that only a few verbs need still waits for them.
    expect(modules).not.toContain('node:http');
  });

  it('requires node:fs and node:path directly instead of copying them into each importing file', () => {
    const bundle = readFileSync(join(REPO, 'dist', 'cli-bundle', 'main.cjs'), 'latin1');
    expect(bundle).toContain('require("node:fs")');
    expect(bundle).not.toMatch(/__toESM\(require_node_(fs|path)\(\)/);
    // The stubs remain for what loads at first use.
    expect(bundle).toMatch(/require\("node:http"\)/);
  });
});
