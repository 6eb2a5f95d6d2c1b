/**
 * A git repository as a manifest input (#17): a local bare repository, made
 * here, cloned independently (no alternates, no hardlinks) at a branch or a
 * tag, checked out detached at the ref's commit, which plan shows and the
 * receipt records. A moved ref is a change prepare refuses, saying whether
 * it is a fast-forward; recreate clones afresh. A ref that names nothing,
 * and a source that borrows objects from another repository, are refused
 * before anything is made.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { git } from '../../../helpers/git.js';
import { makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

/** A bare repository `repo.git` in the project with main (two commits) and tag v1 at the first; a work clone beside it to push from. */
function makeRepository(dir: string): { first: string; second: string; work: string } {
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', 'repo.git');
  git(dir, 'init', '--quiet', '--initial-branch=main', 'work');
  const work = join(dir, 'work');
  writeFileSync(join(work, 'VERSION'), 'one\n');
  git(work, 'add', 'VERSION');
  git(work, 'commit', '--quiet', '-m', 'one');
  const first = git(work, 'rev-parse', 'HEAD');
  git(work, 'tag', 'v1');
  writeFileSync(join(work, 'VERSION'), 'two\n');
  git(work, 'commit', '--quiet', '-am', 'two');
  const second = git(work, 'rev-parse', 'HEAD');
  git(work, 'push', '--quiet', '--tags', join(dir, 'repo.git'), 'main');
  return { first, second, work };
}

const manifestAt = (ref: string) =>
  `schema: headspace.workspace/v1\nid: with-git\nprovider: fake\nrepositories:\n  - source: repo.git\n    ref: ${ref}\n    to: app\nsetup:\n  - argv: [cat, app/VERSION]\n`;

const steps = (pkg: ResultPackage) => pkg.key_findings.filter((f) => typeof f === 'object' && f.kind === 'step') as Array<Record<string, unknown>>;

describe('a git input', () => {
  it('clones a branch independently at its commit, as plan said, and records the commit', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { second } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    const plan = await t.engine.plan({ file });
    expect(steps(plan).find((s) => s.step === 'clone')).toMatchObject({ from: 'repo.git', ref: 'main', commit: second, to: 'app' });
    expect(plan.key_findings.find((f) => typeof f === 'object' && f.kind === 'check' && f.name === 'storage')).toMatchObject({
      ok: true,
      text: expect.stringContaining("inputs and local clones' checkouts take 4 bytes"),
    });
    const prepared = await t.engine.prepare({ file });
    expect(prepared.status, prepared.outcome_summary).toBe('success');
    expect(steps(prepared)).toEqual(steps(plan));
    const status = await t.engine.status({ workspaceId: 'with-git' });
    expect(status.evidence[0]?.excerpt).toContain('two');
    const files = await t.engine.listFiles({ workspaceId: 'with-git', path: 'app/.git', limit: 10_000 });
    const names = files.key_findings.filter((f) => typeof f === 'object').map((f) => (f as { path?: string }).path);
    expect(names).toContain('app/.git/HEAD');
    expect(names).not.toContain('app/.git/objects/info/alternates');
    const receipt = JSON.parse(readFileSync(join(t.home, 'receipts', 'with-git.json'), 'utf8')) as { repositories: unknown[] };
    expect(receipt.repositories).toEqual([{ input: 'repositories[0]', source: 'repo.git', ref: 'main', commit: second, to: 'app' }]);
  });

  it('clones a tag at its commit', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { first } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('v1'));
    const prepared = await t.engine.prepare({ file });
    expect(steps(prepared).find((s) => s.step === 'clone')).toMatchObject({ ref: 'v1', commit: first });
    expect((await t.engine.status({ workspaceId: 'with-git' })).evidence[0]?.excerpt).toContain('one');
  });

  it('fast-forwards a clone in place when its ref moved forward, keeping untracked files, and does nothing more', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { second, work } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    await t.engine.prepare({ file });
    await t.engine.run({ workspaceId: 'with-git', argv: ['write', 'app/build.out', 'made by a job'] });
    writeFileSync(join(work, 'VERSION'), 'three\n');
    writeFileSync(join(work, 'NEW'), 'new\n');
    git(work, 'add', 'NEW');
    git(work, 'commit', '--quiet', '-am', 'three');
    const third = git(work, 'rev-parse', 'HEAD');
    git(work, 'push', '--quiet', join(project.dir, 'repo.git'), 'main');
    const plan = await t.engine.plan({ file });
    expect(plan.key_findings.find((f) => typeof f === 'object' && f.kind === 'prepare')).toMatchObject({ state: 'fast-forward' });
    const updated = await t.engine.prepare({ file });
    expect(updated.status, updated.outcome_summary).toBe('success');
    expect(updated.key_findings[0]).toMatchObject({ kind: 'fast-forward', from: second, commit: third });
    const read = async (path: string) => (await t.engine.readFile({ workspaceId: 'with-git', path, maxBytes: 1 << 20 })).bytes.toString('utf8');
    expect(await read('app/VERSION')).toBe('three\n');
    expect(await read('app/NEW')).toBe('new\n');
    expect(await read('app/build.out')).toBe('made by a job');
    expect((await read('app/.git/HEAD')).trim()).toBe(third);
    const receipt = JSON.parse(readFileSync(join(t.home, 'receipts', 'with-git.json'), 'utf8')) as { repositories: Array<{ commit: string }> };
    expect(receipt.repositories[0]!.commit).toBe(third);
    expect((await t.engine.prepare({ file })).outcome_summary).toContain('nothing changed');
  });

  it('refuses to fast-forward a clone a job left dirty, naming the file, and writes nothing', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { second, work } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    await t.engine.prepare({ file });
    await t.engine.run({ workspaceId: 'with-git', argv: ['write', 'app/VERSION', 'edited by a job\n'] });
    writeFileSync(join(work, 'VERSION'), 'three\n');
    writeFileSync(join(work, 'OTHER'), 'x\n');
    git(work, 'add', 'OTHER');
    git(work, 'commit', '--quiet', '-am', 'three');
    git(work, 'push', '--quiet', join(project.dir, 'repo.git'), 'main');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'MANIFEST_CHANGED',
      message: expect.stringContaining('left its clone at app/ dirty: app/VERSION was changed; nothing was done'),
      hint: expect.stringContaining('recreate'),
    });
    const read = async (path: string) => (await t.engine.readFile({ workspaceId: 'with-git', path, maxBytes: 1 << 20 })).bytes.toString('utf8');
    expect(await read('app/VERSION')).toBe('edited by a job\n');
    expect((await read('app/.git/HEAD')).trim()).toBe(second);
    await expect(read('app/OTHER')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('finds a tracked file changed to the same size by its bytes, and one of another size by its size alone', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { work } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    await t.engine.prepare({ file });
    // 'two\n' is 4 bytes: 'owt\n' is the same size, so only its hash tells it changed.
    await t.engine.run({ workspaceId: 'with-git', argv: ['write', 'app/VERSION', 'owt\n'] });
    writeFileSync(join(work, 'VERSION'), 'three\n');
    git(work, 'commit', '--quiet', '-am', 'three');
    git(work, 'push', '--quiet', join(project.dir, 'repo.git'), 'main');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({ message: expect.stringContaining('app/VERSION was changed') });
    await t.engine.run({ workspaceId: 'with-git', argv: ['write', 'app/VERSION', 'a longer edit\n'] });
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({ message: expect.stringContaining('app/VERSION was changed') });
  });

  it('reads a HEAD grown past any ref line as dirty without reading it whole', async () => {
    // A job's sparse 2 GiB HEAD once cost the host 4 GB of memory here (a red team): HEAD is read up to 4 KiB.
    t = makeTestEngine();
    project = makeProject();
    const { second, work } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    await t.engine.prepare({ file });
    await t.engine.run({ workspaceId: 'with-git', argv: ['write', 'app/.git/HEAD', `${second}${' '.repeat(8192)}\n`] });
    writeFileSync(join(work, 'VERSION'), 'three\n');
    git(work, 'commit', '--quiet', '-am', 'three');
    git(work, 'push', '--quiet', join(project.dir, 'repo.git'), 'main');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'MANIFEST_CHANGED',
      message: expect.stringContaining(`app/.git/HEAD no longer names ${second}`),
    });
  });

  it('refuses, before writing anything, a fast-forward that would bring a symbolic link in', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { second, work } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    await t.engine.prepare({ file });
    writeFileSync(join(work, 'VERSION'), 'three\n');
    symlinkSync('/etc/passwd', join(work, 'passwd'));
    git(work, 'add', 'passwd');
    git(work, 'commit', '--quiet', '-am', 'three, with a link');
    git(work, 'push', '--quiet', join(project.dir, 'repo.git'), 'main');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({ code: 'BAD_PATH', message: expect.stringContaining('holds symbolic links (passwd)') });
    const read = async (path: string) => (await t.engine.readFile({ workspaceId: 'with-git', path, maxBytes: 1 << 20 })).bytes.toString('utf8');
    expect(await read('app/VERSION')).toBe('two\n');
    expect((await read('app/.git/HEAD')).trim()).toBe(second);
  });

  it('refuses a non-fast-forward naming both commits; recreate clones afresh', async () => {
    t = makeTestEngine();
    project = makeProject();
    const { second, work } = makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('main'));
    await t.engine.prepare({ file });
    git(work, 'reset', '--quiet', '--hard', 'v1');
    git(work, 'commit', '--quiet', '--allow-empty', '-m', 'rewritten');
    const rewritten = git(work, 'rev-parse', 'HEAD');
    git(work, 'push', '--quiet', '--force', join(project.dir, 'repo.git'), 'main');
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'MANIFEST_CHANGED',
      message: expect.stringContaining(`repositories[0] (repo.git@main) moved: ${second} → ${rewritten}, NOT a fast-forward`),
    });
    const again = await t.engine.prepare({ file, recreate: true });
    expect(again.status).toBe('success');
    expect((await t.engine.status({ workspaceId: 'with-git' })).evidence[0]?.excerpt).toContain('one');
  });

  it("counts a local clone's checkout in plan's storage check, and prepare refuses one past the budget before anything is made", async () => {
    t = makeTestEngine();
    project = makeProject();
    const { work } = makeRepository(project.dir);
    writeFileSync(join(work, 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
    git(work, 'add', 'big.bin');
    git(work, 'commit', '--quiet', '-m', 'big');
    git(work, 'push', '--quiet', join(project.dir, 'repo.git'), 'main');
    const file = project.write(
      'headspace.yml',
      manifestAt('main').replace('provider: fake\n', 'provider: fake\npolicy:\n  budget:\n    storageBytes: 1048576\n'),
    );
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('past the storage_bytes budget of 1048576'),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it('refuses a ref that names nothing, and a source borrowing objects through alternates, before anything is made', async () => {
    t = makeTestEngine();
    project = makeProject();
    makeRepository(project.dir);
    const file = project.write('headspace.yml', manifestAt('no-such-branch'));
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringContaining("repositories[0]: ref 'no-such-branch' does not name a commit"),
    });
    git(project.dir, 'clone', '--quiet', '--bare', '--shared', 'repo.git', 'borrowing.git');
    project.write('headspace.yml', manifestAt('main').replace('source: repo.git', 'source: borrowing.git'));
    await expect(t.engine.prepare({ file })).rejects.toMatchObject({
      message: expect.stringContaining('borrows objects from another (objects/info/alternates)'),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
