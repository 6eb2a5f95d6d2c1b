/**
 * A copy an untrusted party asks for — a manifest's directory input, an
 * agent's put or run inputs (MCP sets withoutGitMetadata) — leaves every
 * nested `.git` out and says so: a nested clone's config may hold the
 * user's token (red team round 2: a manifest's `deps` input carried
 * deps/foo/.git/config, token and all, into the workspace). The user's own
 * put keeps it: copying a repository in whole is theirs to ask.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { makeProject } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let dir: string;
afterEach(() => {
  t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** deps/foo: a clone (its .git); deps/dep.git: a bare mirror (a git directory by another name). Both configs hold a token. */
function depsWithAClone(root: string): string {
  const deps = join(root, 'deps');
  mkdirSync(join(deps, 'foo', '.git'), { recursive: true });
  writeFileSync(join(deps, 'foo', '.git', 'config'), '[remote "origin"]\n\turl = https://user:SECRETTOKEN@example.com/x\n');
  writeFileSync(join(deps, 'foo', 'lib.py'), 'x = 1\n');
  mkdirSync(join(deps, 'dep.git', 'objects'), { recursive: true });
  mkdirSync(join(deps, 'dep.git', 'refs'));
  writeFileSync(join(deps, 'dep.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(deps, 'dep.git', 'config'), '[remote "origin"]\n\turl = https://user:SECRET2@example.com/dep\n');
  return deps;
}

const readable = (workspaceId: string, path: string) =>
  t.engine.readFile({ workspaceId, path }).then(
    () => 'read',
    (e: { code?: string }) => e.code ?? 'refused',
  );

describe('a copy an untrusted party asks for', () => {
  it('leaves a nested .git out of an agent put and names it; the user put keeps it', async () => {
    t = makeTestEngine();
    dir = mkdtempSync(join(tmpdir(), 'hs-untrusted-copy-'));
    const deps = depsWithAClone(dir);
    await t.engine.create({ workspaceId: 'w' });
    const agent = await t.engine.put({ workspaceId: 'w', hostPath: deps, destination: 'agent', withoutGitMetadata: true });
    expect(agent.outcome_summary).toContain('a directory of 1 file(s)');
    expect(agent.attention.find((a) => a.kind === 'left-out')?.text).toContain('left out 2 .git folder(s) or git directories');
    expect(agent.attention.find((a) => a.kind === 'left-out')?.text).toContain('agent/foo/.git');
    expect(agent.attention.find((a) => a.kind === 'left-out')?.text).toContain('agent/dep.git');
    const user = await t.engine.put({ workspaceId: 'w', hostPath: deps, destination: 'user' });
    expect(user.outcome_summary).toContain('a directory of 4 file(s)');
    expect(await readable('w', 'agent/foo/.git/config')).not.toBe('read');
    expect(await readable('w', 'agent/dep.git/config')).not.toBe('read');
    expect(await readable('w', 'user/foo/.git/config')).toBe('read');
  });

  it("leaves a nested .git out of a manifest's directory input, as plan counted, with a warning", async () => {
    t = makeTestEngine();
    const project = makeProject();
    dir = project.dir;
    depsWithAClone(project.dir);
    const file = project.write('headspace.yml', 'schema: headspace.workspace/v1\nid: m\nprovider: fake\ninputs:\n  - path: deps\n');
    const plan = await t.engine.plan({ file });
    expect(JSON.stringify(plan.key_findings)).toContain('1 file');
    const prepared = await t.engine.prepare({ file });
    expect(prepared.status, prepared.outcome_summary).toBe('success');
    expect(prepared.warnings.join('\n')).toContain('inputs[0]: left out 2 .git folder(s) or git directories');
    expect(await readable('m', 'deps/foo/.git/config')).not.toBe('read');
    expect(await readable('m', 'deps/foo/lib.py')).toBe('read');
  });
});
