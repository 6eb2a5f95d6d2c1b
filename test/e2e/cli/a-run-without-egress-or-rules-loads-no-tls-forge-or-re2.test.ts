/**
 * A workspace with no allow-list and no rules never loads the egress stack's
 * packages (node-forge, node:tls) or re2js: a static import loaded them with
 * every create and run, ~60 ms of a CLI call (#20). Each is loaded where it is
 * first used instead, and the control runs show the trace sees each one when
 * a call does use it: a grep loads re2js, an allow-list run node:tls, and
 * making a workspace CA node-forge.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

const heavy = (modules: string[]) => ({
  forge: modules.some((m) => m.includes('/node_modules/node-forge/')),
  re2: modules.some((m) => m.includes('/node_modules/re2js/')),
  tls: modules.includes('node:tls'),
});

function traced(args: string[]): string[] {
  trace.reset();
  const run = cli(home, args, trace.env);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return trace.modules();
}

describe('a workspace without egress or rules', () => {
  it('creates, runs, is inspected and destroyed without node-forge, node:tls or re2js', () => {
    const all = [
      ...traced(['create', '--workspace-id', 'plain']),
      ...traced(['run', 'plain', 'echo', 'hello']),
      ...traced(['run', '--json', 'plain', 'echo', 'again']),
      ...traced(['inspect', 'plain']),
      ...traced(['destroy', 'plain', '--force']),
    ];
    // The trace covers the CLI and the packages it does load…
    expect(all.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(all).toContain('node:fs');
    // …and none of the three.
    expect(heavy(all)).toEqual({ forge: false, re2: false, tls: false });
  });

  it('would be caught: a grep loads re2js, and a run with an allow-list loads node:tls', () => {
    expect(cli(home, ['create', '--workspace-id', 'net', '--network', 'allow=api.test']).code).toBe(0);
    expect(heavy(traced(['run', '--job-id', 'net-job', 'net', 'echo', 'hi'])).tls).toBe(true);
    expect(heavy(traced(['logs', 'net-job', '--grep', 'h.'])).re2).toBe(true);
  });

  it('would be caught: making a workspace CA loads node-forge under the same hook', () => {
    trace.reset();
    const caHome = mkdtempSync(join(tmpdir(), 'hs-ca-'));
    try {
      const url = pathToFileURL(join(REPO, 'dist', 'core', 'network', 'egress-ca.js')).href;
      const control = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `(await import(${JSON.stringify(url)})).ensureWorkspaceCa(${JSON.stringify(caHome)}, 'w');`],
        { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...trace.env } },
      );
      expect(control.status, control.stderr).toBe(0);
      expect(heavy(trace.modules()).forge).toBe(true);
    } finally {
      rmSync(caHome, { recursive: true, force: true });
    }
  });
});
