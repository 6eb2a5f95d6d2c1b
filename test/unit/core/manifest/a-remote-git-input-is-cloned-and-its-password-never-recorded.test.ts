/**
 * A remote git repository as a manifest input (#17), served over smart HTTP
 * on loopback behind Basic authentication (test/helpers/git-http-server.ts):
 * the URL's password is used to fetch, and is never written anywhere —
 * plan, prepare, the receipt, HEADSPACE_HOME (store included), the clone's
 * own files in the workspace — always shown as `***`. A branch, an
 * annotated tag and a full commit id pin the clone; a moved branch
 * fast-forwards in place. URLs git must not be pointed at are refused before
 * anything is made.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { startGitHttpServer, type GitHttpServer } from '../../../helpers/git-http-server.js';
import { git } from '../../../helpers/git.js';
import { makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

const PASSWORD = 'hunter2-SECRET-9f3a';
let t: TestEngine;
let project: ReturnType<typeof makeProject>;
let server: GitHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  t.cleanup();
  project.cleanup();
});

/** served/repo.git with main (two commits) and an annotated tag v1 at the first; `work` to push from. */
function makeServedRepository(dir: string): { served: string; first: string; second: string; work: string } {
  const served = join(dir, 'served');
  mkdirSync(served);
  git(served, 'init', '--quiet', '--bare', '--initial-branch=main', 'repo.git');
  git(dir, 'init', '--quiet', '--initial-branch=main', 'work');
  const work = join(dir, 'work');
  writeFileSync(join(work, 'VERSION'), 'one\n');
  git(work, 'add', 'VERSION');
  git(work, 'commit', '--quiet', '-m', 'one');
  const first = git(work, 'rev-parse', 'HEAD');
  git(work, 'tag', '-a', 'v1', '-m', 'release one');
  writeFileSync(join(work, 'VERSION'), 'two\n');
  git(work, 'commit', '--quiet', '-am', 'two');
  const second = git(work, 'rev-parse', 'HEAD');
  git(work, 'push', '--quiet', '--tags', join(served, 'repo.git'), 'main');
  return { served, first, second, work };
}

const manifest = (source: string, ref: string) =>
  `schema: headspace.workspace/v1\nid: remote-git\nprovider: fake\nrepositories:\n  - source: "${source}"\n    ref: ${ref}\n    to: app\nsetup:\n  - argv: [cat, app/VERSION]\n`;

const cloneStep = (pkg: ResultPackage) => pkg.key_findings.find((f) => typeof f === 'object' && f.kind === 'step' && f.step === 'clone');

/** Every byte under a directory, concatenated (the store, its WAL, receipts, watch records, the fake's state). */
function everyByteUnder(dir: string): string {
  let all = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    all += statSync(path).isDirectory() ? everyByteUnder(path) : readFileSync(path, 'latin1');
  }
  return all;
}

async function workspaceText(path: string): Promise<string> {
  return (await t.engine.readFile({ workspaceId: 'remote-git', path, maxBytes: 1 << 20 })).bytes.toString('latin1');
}

/** Every file of the clone in the workspace, .git included, read back through the engine. */
async function everyWorkspaceFile(): Promise<string> {
  const listed = await t.engine.listFiles({ workspaceId: 'remote-git', path: 'app', limit: 10_000 });
  const files = listed.key_findings.filter((f) => typeof f === 'object' && f.kind === 'file' && f.type === 'file' && typeof f.path === 'string') as Array<{
    path: string;
  }>;
  expect(files.length).toBeGreaterThan(5);
  let all = '';
  for (const file of files) all += await workspaceText(file.path);
  return all;
}

describe('a remote git input', () => {
  it('is cloned at a branch with the credentials the URL carries, and the password is never recorded or shown', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { served, second } = makeServedRepository(project.dir);
    server = await startGitHttpServer(served, { user: 'ann', password: PASSWORD });
    const url = `${server.base.replace('http://', `http://ann:${PASSWORD}@`)}/repo.git`;
    const shown = `${server.base.replace('http://', 'http://ann:***@')}/repo.git`;
    const file = project.write('headspace.yml', manifest(url, 'main'));

    const plan = await t.engine.plan({ file });
    expect(cloneStep(plan)).toMatchObject({ from: shown, ref: 'main', commit: second });
    const prepared = await t.engine.prepare({ file });
    expect(prepared.status, prepared.outcome_summary).toBe('success');
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect((await t.engine.status({ workspaceId: 'remote-git' })).evidence[0]?.excerpt).toContain('two');
    expect(await workspaceText('app/.git/config')).toContain(`url = ${server.base.replace('http://', 'http://ann@')}/repo.git`);

    const status = await t.engine.status({ workspaceId: 'remote-git' });
    for (const text of [JSON.stringify(plan), JSON.stringify(prepared), JSON.stringify(status), everyByteUnder(t.home), await everyWorkspaceFile()]) {
      expect(text).not.toContain(PASSWORD);
    }
    expect(readFileSync(join(t.home, 'receipts', 'remote-git.json'), 'utf8')).toContain(shown);
  });

  it('is pinned by an annotated tag (peeled to its commit) and by a full commit id', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { served, first } = makeServedRepository(project.dir);
    server = await startGitHttpServer(served);
    const file = project.write('headspace.yml', manifest(`${server.base}/repo.git`, 'v1'));
    expect(cloneStep(await t.engine.plan({ file }))).toMatchObject({ ref: 'v1', commit: first });
    project.write('headspace.yml', manifest(`${server.base}/repo.git`, first));
    const prepared = await t.engine.prepare({ file });
    expect(cloneStep(await t.engine.plan({ file }))).toMatchObject({ ref: first, commit: first });
    expect(prepared.status, prepared.outcome_summary).toBe('success');
    expect((await workspaceText('app/VERSION')).trim()).toBe('one');
  });

  it('fast-forwards in place when the remote branch moved forward', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { served, work } = makeServedRepository(project.dir);
    server = await startGitHttpServer(served);
    const file = project.write('headspace.yml', manifest(`${server.base}/repo.git`, 'main'));
    await t.engine.prepare({ file });
    writeFileSync(join(work, 'VERSION'), 'three\n');
    git(work, 'commit', '--quiet', '-am', 'three');
    const third = git(work, 'rev-parse', 'HEAD');
    git(work, 'push', '--quiet', join(served, 'repo.git'), 'main');
    const updated = await t.engine.prepare({ file });
    expect(updated.key_findings[0]).toMatchObject({ kind: 'fast-forward', commit: third });
    expect(await workspaceText('app/VERSION')).toBe('three\n');
  });

  it('refuses a wrong password with a message that does not carry it, before anything is made', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { served } = makeServedRepository(project.dir);
    server = await startGitHttpServer(served, { user: 'ann', password: 'the-right-one' });
    const file = project.write('headspace.yml', manifest(`${server.base.replace('http://', `http://ann:${PASSWORD}@`)}/repo.git`, 'main'));
    const plan = await t.engine.plan({ file });
    expect(plan.key_findings[0]).toMatchObject({ ready: false });
    expect(JSON.stringify(plan)).not.toContain(PASSWORD);
    const refusal = await t.engine.prepare({ file }).then(
      () => null,
      (error: Error) => error,
    );
    expect(refusal).toMatchObject({ code: 'FILE_NOT_FOUND', message: expect.stringContaining('could not list http://ann:***@') });
    expect(JSON.stringify(refusal) + String(refusal?.message)).not.toContain(PASSWORD);
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it.each([
    ['http://example.com/repo.git', 'does not authenticate the server'],
    ['git://example.com/repo.git', 'does not authenticate the server'],
    ['file:///etc/repo.git', 'the file:// scheme is not taken'],
    ['ssh://-oProxyCommand=touch%20pwned/repo.git', "user or host may not start with '-'"],
    ['ext::sh -c touch% /tmp/pwned', 'a URL may not contain spaces'],
    ['ext::/tmp/run-me', 'not a URL git may fetch from'],
  ])('refuses %s naming the key and line, before anything is made', async (source, why) => {
    t = makeTestEngine();
    project = makeProject();
    const file = project.write('headspace.yml', manifest(source, 'main'));
    await expect(t.engine.plan({ file })).rejects.toMatchObject({
      code: 'BAD_MANIFEST',
      message: expect.stringMatching(new RegExp(`repositories\\[0\\]\\.source, line 5: .*${why}`)),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
