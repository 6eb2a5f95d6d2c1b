/**
 * `put DIR --overwrite` makes the destination hold exactly the source (#12
 * item 14): files deleted on the host are gone from the workspace, a folder
 * that became a file (or the reverse) is replaced, and the recorded digest
 * is the manifest of what the workspace now holds — equal to that of the
 * same tree put fresh elsewhere. On fake and, where the host is ready, on
 * native.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const src = mkdtempSync(join(home, 'src-'));
afterAll(async () => {
  rmSync(src, { recursive: true, force: true });
  await cleanup();
});

interface Pkg {
  key_findings: string[];
  provenance: { inputs: Array<{ destination: string; sha256: string }> };
}

function files(provider: string, ws: string, path: string): string[] {
  const out = cli(home, ['ls-files', ws, path, '--json'], { HEADSPACE_PROVIDER: provider });
  expect(out.code, out.stderr).toBe(0);
  // A finding is a line, or an object whose text holds lines (result-schema.ts allows both).
  const findings = (JSON.parse(out.stdout) as { key_findings: Array<string | { text: string }> }).key_findings;
  return findings
    .flatMap((f) => (typeof f === 'string' ? f : f.text).split('\n'))
    .map((f) => f.replace(/^- /, '').replace(/ \(\d+ bytes\)$/, ''))
    .sort();
}

describe.each([
  ['fake', true],
  ['native', readiness.ready],
])('put --overwrite on %s', (provider, ready) => {
  it.runIf(ready)('replaces the tree, and records the digest of what the workspace now holds', () => {
    const env = { HEADSPACE_PROVIDER: provider };
    const ws = `put-${provider}`;
    const tree = join(src, provider);
    mkdirSync(join(tree, 'keep'), { recursive: true });
    mkdirSync(join(tree, 'gone-dir'), { recursive: true });
    writeFileSync(join(tree, 'keep', 'a.txt'), 'a');
    writeFileSync(join(tree, 'gone.txt'), 'gone');
    writeFileSync(join(tree, 'gone-dir', 'x.txt'), 'x');
    writeFileSync(join(tree, 'flip'), 'a file first');
    expect(cli(home, ['create', '--workspace-id', ws], env).code).toBe(0);
    expect(cli(home, ['put', ws, tree, 'd'], env).code).toBe(0);

    rmSync(join(tree, 'gone.txt'));
    rmSync(join(tree, 'gone-dir'), { recursive: true });
    rmSync(join(tree, 'flip'));
    mkdirSync(join(tree, 'flip'));
    writeFileSync(join(tree, 'flip', 'now-a-folder.txt'), 'f');
    writeFileSync(join(tree, 'new.txt'), 'new');
    const again = cli(home, ['put', '--json', ws, tree, 'd', '--overwrite'], env);
    expect(again.code, again.stderr).toBe(0);

    expect(files(provider, ws, 'd')).toEqual(['d/flip/', 'd/flip/now-a-folder.txt', 'd/keep/', 'd/keep/a.txt', 'd/new.txt']);
    const fresh = cli(home, ['put', '--json', ws, tree, 'fresh'], env);
    expect(fresh.code, fresh.stderr).toBe(0);
    const digestOf = (text: string) => (JSON.parse(text) as Pkg).provenance.inputs[0]!.sha256;
    expect(digestOf(again.stdout)).toBe(digestOf(fresh.stdout));
  });

  it.runIf(ready)('replaces a directory with a file', () => {
    const env = { HEADSPACE_PROVIDER: provider };
    const ws = `put-${provider}`;
    const file = join(src, `${provider}-single.txt`);
    writeFileSync(file, 'single');
    const out = cli(home, ['put', ws, file, 'd', '--overwrite'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(files(provider, ws, '').filter((f) => f.startsWith('d'))).toEqual(['d']);
  });
});
