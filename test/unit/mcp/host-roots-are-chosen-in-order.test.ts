/**
 * The MCP server's host-path roots come from, in order: the client's
 * file:// roots, the --root folders, the directory the server started in —
 * and there are none when that directory is `/` (#10 item 6). Containment is
 * by whole path components, so /a/bc is not under /a/b.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeRoots, fallbackRoots, isWithin, rootSetFromClient } from '../../../src/mcp/host-roots.js';

describe('host roots', () => {
  it('are the --root folders, resolved against the working directory, when given', () => {
    expect(fallbackRoots(['proj', '/data'], '/home/u')).toEqual({ dirs: ['/home/u/proj', '/data'], origin: 'flag' });
  });

  it('are the working directory without --root', () => {
    expect(fallbackRoots([], '/home/u/proj')).toEqual({ dirs: ['/home/u/proj'], origin: 'cwd' });
  });

  it('are none when the working directory is /, and say how to fix it', () => {
    const set = fallbackRoots([], '/');
    expect(set.dirs).toEqual([]);
    expect(describeRoots(set)).toContain('--root');
  });

  it('keep only file:// roots from the client, decoded, that exist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'my proj '));
    try {
      expect(
        rootSetFromClient([
          { uri: pathToFileURL(dir).href },
          { uri: 'file:///home/nobody-here/missing%20proj' },
          { uri: 'https://example.invalid/x' },
          { uri: 'file://server/share' },
        ]),
      ).toEqual({ dirs: [dir], origin: 'client' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('contain a path by whole components only', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b/c', '/a/b')).toBe(true);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});
