/**
 * The CLI never loads zod: it costs about 60 ms at every start, and only the
 * MCP server needs it. The result schema is a zod schema in core, so this
 * holds only while verbs and renderers import it type-only. Each CLI run
 * below goes through the built bin with a module hook that writes down every
 * module Node resolves; a control run that imports the schema shows the hook
 * does see zod when it loads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome, REPO } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
const hooks = mkdtempSync(join(tmpdir(), 'hs-hooks-'));
const log = join(hooks, 'resolved.txt');
afterAll(async () => {
  await cleanup();
  rmSync(hooks, { recursive: true, force: true });
});

// Resolve hooks run on Node's loader thread; appending synchronously means
// every resolution is on disk before the import that asked for it returns.
writeFileSync(
  join(hooks, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.HS_RESOLVED_LOG, resolved.url + '\\n');
  return resolved;
}
`,
);
writeFileSync(
  join(hooks, 'register.mjs'),
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(hooks, 'hooks.mjs')).href)});\n`,
);
const traced = { NODE_OPTIONS: `--import=${join(hooks, 'register.mjs')}`, HS_RESOLVED_LOG: log };

function resolvedModules(): string[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

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
    // The trace really covers the verbs and both renderers…
    for (const part of [
      '/dist/cli/main.js',
      '/dist/core/verbs/run.js',
      '/dist/core/result/render-json.js',
      '/dist/core/result/render-markdown.js',
      '/dist/core/result/build-result.js',
    ]) {
      expect(
        modules.some((m) => m.endsWith(part)),
        part,
      ).toBe(true);
    }
    // …and neither zod nor the schema module is among them.
    expect(modules.filter((m) => m.includes('/node_modules/zod/') || m.endsWith('/result-schema.js'))).toEqual([]);
  });

  it('would be caught: importing the schema does load zod under the same hook', () => {
    rmSync(log, { force: true });
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
});
