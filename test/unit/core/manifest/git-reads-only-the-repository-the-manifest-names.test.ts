/**
 * Host-side git reads only the repository a manifest names, and writes no
 * more than the workspace may hold (red team, hostile manifests): a source
 * whose objects or refs are links into another repository, or whose
 * packed-refs is a FIFO, fails plan's checks and is refused by prepare
 * before anything is made; a folder that
 * is not a repository is refused, not resolved in the repository around it;
 * a partial clone (whose promisor remote git would fetch from by itself,
 * through the repository's own sshCommand) and a configuration that
 * includes other files are refused, and nothing it names runs; and a clone
 * whose checkout is larger than the storage budget is refused
 * before a file of it is written (one blob named under many paths packs
 * small and checks out huge).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { independentClone } from '../../../../src/core/manifest/git-input.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { git } from '../../../helpers/git.js';
import { makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

/** A repository `name` in `dir` with one commit on main holding `files`. */
function makeRepository(dir: string, name: string, files: Record<string, string>): string {
  const work = join(dir, name);
  git(dir, 'init', '--quiet', '--initial-branch=main', name);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(work, path), text);
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'one');
  return work;
}

const manifestFrom = (source: string) =>
  `schema: headspace.workspace/v1\nid: from-git\nprovider: fake\nrepositories:\n  - source: ${source}\n    ref: main\n    to: app\n`;

/** plan reports the source as a failed check (not ready), prepare refuses it, and nothing is made. */
async function refusedBoth(file: string, message: RegExp): Promise<void> {
  const plan = await t.engine.plan({ file });
  expect(plan.outcome_summary).toContain('not ready');
  expect(JSON.stringify(plan.key_findings)).toMatch(message);
  await expect(t.engine.prepare({ file })).rejects.toMatchObject({ code: 'BAD_ARGUMENT', message: expect.stringMatching(message) });
  expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
}

describe('git on the host', () => {
  it("refuses a bare repository whose objects and refs are links into another repository's", async () => {
    t = makeTestEngine();
    project = makeProject();
    // The other repository lies outside the project: the manifest does not name it.
    const victim = makeRepository(tmpdir(), `hs-victim-${process.pid}-${Date.now()}`, { 'secret.txt': 'TOP SECRET\n' });
    try {
      const bare = join(project.dir, 'vendor', 'lib.git');
      mkdirSync(bare, { recursive: true });
      symlinkSync(join(victim, '.git', 'objects'), join(bare, 'objects'));
      symlinkSync(join(victim, '.git', 'refs'), join(bare, 'refs'));
      writeFileSync(join(bare, 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(join(bare, 'config'), '[core]\n\tbare = true\n');
      const file = project.write('headspace.yml', manifestFrom('vendor/lib.git'));
      await refusedBoth(file, /repositories\[0\]: objects in the repository is a link or a special file, which a clone would follow/);
    } finally {
      execFileSync('rm', ['-rf', victim]);
    }
  });

  it('refuses a packed-refs that is a FIFO at once instead of leaving git to wait on it', async () => {
    t = makeTestEngine();
    project = makeProject();
    const work = makeRepository(project.dir, 'repo', { 'a.txt': 'a\n' });
    execFileSync('mkfifo', [join(work, '.git', 'packed-refs')]);
    const file = project.write('headspace.yml', manifestFrom('repo'));
    await refusedBoth(file, /\.git\/packed-refs in the repository is a link or a special file/);
  });

  it('refuses a folder that is not a repository rather than reading the repository around it', async () => {
    t = makeTestEngine();
    project = makeProject();
    // The project itself is a repository with a main branch; `plain` is a folder in it.
    git(project.dir, 'init', '--quiet', '--initial-branch=main');
    project.write('plain/readme.txt', 'not a repository\n');
    git(project.dir, 'add', '.');
    git(project.dir, 'commit', '--quiet', '-m', 'project');
    const file = project.write('headspace.yml', manifestFrom('plain'));
    await refusedBoth(file, /repositories\[0\]: .*plain is not a git repository/);
  });

  it("runs nothing a partial clone's own configuration names, and refuses it and an include", async () => {
    t = makeTestEngine();
    project = makeProject();
    const work = makeRepository(project.dir, 'partial', { 'a.txt': 'a\n' });
    const marker = join(project.dir, 'ssh-ran');
    // A promisor remote: git fetches a missing object from it by itself, through the repository's own sshCommand.
    writeFileSync(
      join(work, '.git', 'config'),
      `[core]\n\trepositoryformatversion = 1\n\tsshCommand = sh -c 'id > ${marker}' x\n[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = ssh://example.invalid/x\n\tpromisor = true\n`,
    );
    const file = project.write('headspace.yml', manifestFrom('partial').replace('ref: main', `ref: "${'1'.repeat(40)}"`));
    await refusedBoth(file, /repositories\[0\]: the repository's configuration sets extensions\.partialclone, remote\.origin\.promisor: a partial clone/);
    expect(existsSync(marker), "the promisor fetch ran the repository's sshCommand").toBe(false);

    // The same in config.worktree, which git reads once extensions.worktreeConfig is set (red team round 3).
    const worktreeConfig = makeRepository(project.dir, 'worktree-config', { 'c.txt': 'c\n' });
    writeFileSync(join(worktreeConfig, '.git', 'config'), `[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n`);
    writeFileSync(join(worktreeConfig, '.git', 'config.worktree'), `[remote "origin"]\n\turl = ssh://example.invalid/x\n\tpromisor = true\n`);
    project.write('headspace.yml', manifestFrom('worktree-config'));
    await refusedBoth(file, /the repository's configuration sets remote\.origin\.promisor/);

    const including = makeRepository(project.dir, 'including', { 'b.txt': 'b\n' });
    writeFileSync(join(including, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n[include]\n\tpath = /etc/gitconfig\n`);
    project.write('headspace.yml', manifestFrom('including'));
    await refusedBoth(file, /the repository's configuration sets include\.path/);
  });

  it('refuses a checkout larger than the storage budget before writing a file of it', async () => {
    t = makeTestEngine();
    project = makeProject();
    const work = makeRepository(project.dir, 'bomb', { z00: '' });
    // One blob of 1 MiB of zeros named under 16 paths: the pack holds it once, a checkout writes it 16 times.
    writeFileSync(join(work, 'z00'), Buffer.alloc(1024 * 1024));
    for (let i = 1; i < 16; i++) writeFileSync(join(work, `z${String(i).padStart(2, '0')}`), Buffer.alloc(1024 * 1024));
    git(work, 'add', '.');
    git(work, 'commit', '--quiet', '-m', 'zeros');
    const commit = git(work, 'rev-parse', 'HEAD');
    const source = { key: 'repositories[0]', shown: 'bomb', location: work, remote: false };
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('hs-clone-')).length;
    await expect(independentClone(source, commit, { maxCheckoutBytes: 4 * 1024 * 1024 })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringMatching(/would write 16777216 bytes, more than the workspace's storage budget \(4194304 bytes\); nothing was checked out/),
    });
    // The refused clone is removed whole.
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('hs-clone-')).length).toBeLessThanOrEqual(before);
    const within = await independentClone(source, commit, { maxCheckoutBytes: 32 * 1024 * 1024 });
    try {
      expect(existsSync(join(within.dir, 'z15'))).toBe(true);
    } finally {
      within.remove();
    }
  });
});
