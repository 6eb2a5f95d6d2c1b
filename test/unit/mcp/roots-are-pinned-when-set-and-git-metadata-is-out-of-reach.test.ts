/**
 * The MCP server's roots are resolved once, when they are set: a client root
 * that does not exist then is none, and one renamed into a link afterwards
 * does not carry a check to the link's target (red team round 2: a client
 * named a missing folder under the server's, made it a link to /etc, and
 * put /etc/shadow). And a `.git` folder under a root is out of reach for
 * reading and writing, and so is any git directory by git's own test
 * (round 3: a `.bare` and a bare mirror): an export over `.git/config` set
 * core.fsmonitor, which the user's next git call would have run.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPathGuard, rootSetFromClient } from '../../../src/mcp/host-roots.js';

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('roots', () => {
  it('are pinned when listed: a missing root is none, and a root renamed into a link admits nothing outside', async () => {
    base = mkdtempSync(join(tmpdir(), 'hs-roots-pinned-'));
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret'), 'secret\n');
    const root = join(base, 'root');
    mkdirSync(root);
    const missing = join(base, 'later');
    const set = rootSetFromClient([{ uri: pathToFileURL(root).href }, { uri: pathToFileURL(missing).href }]);
    expect(set.dirs).toEqual([root]);
    // After the listing, the root becomes a link to another folder.
    renameSync(root, join(base, 'root-was'));
    symlinkSync(outside, root);
    const guard = hostPathGuard(() => Promise.resolve(set), base, 'put');
    await expect(guard.readable(join(root, 'secret'))).rejects.toMatchObject({ code: 'POLICY_DENIED' });
  });

  it("keep a root's .git folder out of reach for reading and writing", async () => {
    base = mkdtempSync(join(tmpdir(), 'hs-roots-git-'));
    mkdirSync(join(base, '.git'));
    writeFileSync(join(base, '.git', 'config'), '[core]\n');
    writeFileSync(join(base, 'readme'), 'hi\n');
    const guard = hostPathGuard(() => Promise.resolve(rootSetFromClient([{ uri: pathToFileURL(base).href }])), base, 'export');
    const refusal = { code: 'POLICY_DENIED', message: expect.stringContaining("is inside a .git folder or another git directory, the user's git metadata") };
    await expect(guard.readable(join(base, '.git', 'config'))).rejects.toMatchObject(refusal);
    await expect(guard.writable(join(base, '.git', 'config'))).rejects.toMatchObject(refusal);
    await expect(guard.writable(join(base, '.GIT', 'hooks', 'x'))).rejects.toMatchObject({ code: expect.any(String) });
    await expect(guard.writable(`${join(base, '.git')}/`)).rejects.toMatchObject(refusal);
    expect(await guard.readable(join(base, 'readme'))).toBe(join(base, 'readme'));
  });

  it('keep a git directory of any name out of reach: a bare-plus-worktrees .bare, a bare mirror (red team round 3)', async () => {
    base = mkdtempSync(join(tmpdir(), 'hs-roots-bare-'));
    for (const dir of [join(base, 'proj', '.bare'), join(base, 'mirrors', 'dep.git')]) {
      mkdirSync(join(dir, 'objects'), { recursive: true });
      mkdirSync(join(dir, 'refs'));
      writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(join(dir, 'config'), '[core]\n\tbare = true\n');
    }
    const guard = hostPathGuard(() => Promise.resolve(rootSetFromClient([{ uri: pathToFileURL(base).href }])), base, 'export');
    const refusal = { code: 'POLICY_DENIED', message: expect.stringContaining('another git directory') };
    await expect(guard.writable(join(base, 'proj', '.bare', 'config'))).rejects.toMatchObject(refusal);
    await expect(guard.readable(join(base, 'mirrors', 'dep.git', 'config'))).rejects.toMatchObject(refusal);
    await expect(guard.readable(join(base, 'mirrors', 'dep.git'))).rejects.toMatchObject(refusal);
    expect(await guard.readable(join(base, 'mirrors'))).toBe(join(base, 'mirrors'));
  });
});
