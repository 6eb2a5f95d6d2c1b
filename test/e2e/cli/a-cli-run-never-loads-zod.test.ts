/**
 * The CLI never loads zod: it costs about 60 ms at every start, and only the
 * MCP server needs it. The result schema is a zod schema in core, so this
 * holds only while verbs and renderers import it type-only. Each CLI run
 * below goes through the built bin with a module hook that writes down every
 * ES module Node resolves and, at exit, every CommonJS file in require's
 * cache (the CLI bundle loads packages through require, #20); control runs
 * that load the schema, or zod through require, show the hook sees zod.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome, REPO } from '../../helpers/cli.js';
import { moduleTrace } from '../../helpers/module-trace.js';

const { home, cleanup } = makeHome();
const trace = moduleTrace();
afterAll(async () => {
  await cleanup();
  trace.cleanup();
});
const traced = trace.env;
const resolvedModules = trace.modules;

describe('the CLI', () => {
  it('loads no zod through a whole workflow, in markdown and JSON', () => {
    const steps = [
      ['create', '--workspace-id', 'w'],
      ['run', '--job-id', 'job-a', '--declare', 'out.txt=the output', 'w', 'write', 'out.txt', 'x'],
      ['run', '--json', 'w', 'echo', 'hello'],
      ['inspect', 'job-a'],
      ['inspect', 'w', '--json'],
      ['logs', 'job-a', '--grep', 'x'],
      ['ls-files', 'w'],
      ['ls'],
      ['stop', 'w'],
      ['doctor'],
      ['destroy', 'w', '--force'],
    ];
    for (const args of steps) {
      const run = cli(home, args, traced);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const modules = resolvedModules();
    // The trace really covers the CLI (the loader of its bundle, or the per-file build when no bundle is current) and a package it requires…
    expect(modules.some((m) => m.endsWith('/bin/load-cli-bundle.cjs') || m.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    // …and neither zod nor the schema module is among them.
    expect(modules.filter((m) => m.includes('/node_modules/zod/') || m.endsWith('/result-schema.js'))).toEqual([]);
  });

  it('would be caught: importing the schema does load zod under the same hook', () => {
    trace.reset();
    const control = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'core', 'result', 'result-schema.js')).href)});`],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...traced },
      },
    );
    expect(control.status, control.stderr).toBe(0);
    expect(resolvedModules().some((m) => m.includes('/node_modules/zod/'))).toBe(true);
  });

  it('would be caught: zod loaded through require is in the same trace', () => {
    trace.reset();
    const control = spawnSync(process.execPath, ['-e', `require('module').createRequire(${JSON.stringify(join(REPO, 'package.json'))})('zod');`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...traced },
    });
    expect(control.status, control.stderr).toBe(0);
    expect(resolvedModules().some((m) => m.includes('/node_modules/zod/'))).toBe(true);
  });
});
