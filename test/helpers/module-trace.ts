/**
 * Which modules a process loaded: every ES module Node resolves (a resolve
 * hook, appended synchronously so each is on disk before its import returns),
 * and at exit every CommonJS file in require's cache (the CLI bundle loads
 * packages through require, #20) and every Node built-in the process loaded
 * (`node:tls`, …, from process.moduleLoadList). Pass `env` to a child process;
 * `modules()` reads what it loaded.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ModuleTrace {
  /** The child's environment additions: the hook, the log, and in-process CLI calls (the trace is of the process that runs the verbs). */
  env: Record<string, string>;
  /** Resolved module URLs (file:…) and built-ins (node:…), in load order, since the last reset. */
  modules(): string[];
  reset(): void;
  cleanup(): void;
}

export function moduleTrace(): ModuleTrace {
  const dir = mkdtempSync(join(tmpdir(), 'hs-hooks-'));
  const log = join(dir, 'resolved.txt');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.HS_RESOLVED_LOG, resolved.url + '\\n');
  return resolved;
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});
const { cache } = createRequire(import.meta.url);
process.on('exit', () => {
  const files = Object.keys(cache).map((f) => pathToFileURL(f).href);
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'node:' + m.slice('NativeModule '.length));
  appendFileSync(process.env.HS_RESOLVED_LOG, [...files, ...builtins].map((m) => m + '\\n').join(''));
});
`,
  );
  return {
    env: { NODE_OPTIONS: `--import=${join(dir, 'register.mjs')}`, HS_RESOLVED_LOG: log, HEADSPACE_SERVE: 'off' },
    modules: () => {
      try {
        return readFileSync(log, 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    reset: () => rmSync(log, { force: true }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
