/**
 * A home inside a directory another user owns is refused by every call
 * (exit 2, naming that directory): that user could swap the home's serve
 * directory between the thin client's check and its connect and take a
 * served call with the caller's whole environment (red team, session 11).
 * Under HEADSPACE_SERVE=require the server started for the call refuses the
 * home too and exits, and the client says so at once instead of waiting out
 * its start time, with the reason the server sent it on its start-report
 * descriptor. Needs root, to give a directory to another uid.
 */
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.js';

const root = process.getuid?.() === 0;
const scratch = mkdtempSync(join(tmpdir(), 'hs-unsafe-home-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.runIf(root)('a home inside a directory another user owns', () => {
  const theirs = join(scratch, 'theirs');
  mkdirSync(theirs);
  chownSync(theirs, 65534, 65534);
  const home = join(theirs, 'home');

  it('is refused in-process with exit 2, naming the directory and the remedy', () => {
    const run = cli(home, ['ls'], { HEADSPACE_SERVE: 'off' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${theirs} is owned by uid 65534, neither root nor this user`);
    expect(run.stderr).toContain('hint: use a home that only you (and root) can change');
  });

  it('is refused through serve at once, with the reason and remedy the server gave', () => {
    const run = cli(home, ['ls'], { HEADSPACE_SERVE: 'require' });
    expect(run.code).toBe(2);
    // Not "no headspace serve listened … within 15 s": a refusing server is noticed as soon as it exits,
    // and its reason, which it could only write to a stderr nobody reads, reaches the caller.
    expect(run.stderr).toContain('the headspace serve started for this call refused to start');
    expect(run.stderr).toContain(`${theirs} is owned by uid 65534, neither root nor this user`);
    expect(run.stderr).toContain('hint: use a home that only you (and root) can change');
    expect(run.stderr).toContain('or unset HEADSPACE_SERVE to run calls in-process');
  });

  it('is refused through serve as JSON with the same reason under --json', () => {
    const run = cli(home, ['ls', '--json'], { HEADSPACE_SERVE: 'require' });
    expect(run.code).toBe(2);
    const error = JSON.parse(run.stderr) as { reason: string; message: string; remediation: string };
    expect(error.reason).toBe('SERVE_UNAVAILABLE');
    expect(error.message).toContain('is owned by uid 65534');
    expect(error.remediation).toContain('use a home that only you (and root) can change');
  });
});
