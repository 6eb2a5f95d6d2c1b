/**
 * `--allow-host-path` is resolved once, at create (#10 item 7): a link is
 * judged by what it resolves to (a link to /etc is refused like /etc), a
 * path overlapping headspace's own state is refused (it would expose other
 * workspaces), and at run the path must still resolve to what was recorded.
 * The provider binds the resolved path, so bwrap never follows the link.
 * Real directories and links in /var/tmp (not /tmp: that is the sandbox's own).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { resolveHostPaths, verifyHostPaths } from '../../../../src/providers/native/host-paths.js';
import { planBwrap } from '../../../../src/providers/native/plan-bwrap.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';

const base = mkdtempSync(join('/var/tmp', 'hs-hostpath-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const plain = join(base, 'data');
mkdirSync(plain);
const state = join(base, 'home');
mkdirSync(join(state, 'native'), { recursive: true });

describe.runIf(process.platform === 'linux')('host path resolution', () => {
  it('records the real path of a link and binds that path at the requested place', () => {
    const link = join(base, 'link-to-data');
    symlinkSync(plain, link);
    const resolved = resolveHostPaths([link], [state]);
    expect(resolved).toEqual({ [link]: plain });
    const { args } = planBwrap(bwrapPlanInput({ policy: { ...defaultPolicy(), hostPaths: [link] }, resolvedHostPaths: resolved }));
    const at = args.indexOf(link);
    expect(args.slice(at - 2, at + 1)).toEqual(['--ro-bind', plain, link]);
  });

  it('refuses a link to /etc, or into /usr, as it refuses those paths', () => {
    for (const target of ['/etc', '/usr/lib']) {
      const link = join(base, `to${target.replace(/\//g, '-')}`);
      symlinkSync(target, link);
      expect(() => resolveHostPaths([link], [state]), target).toThrow(
        expect.objectContaining({ code: 'POLICY_DENIED', message: expect.stringContaining(`resolves to '${target}'`) }),
      );
    }
  });

  it("refuses a path inside headspace's state, one containing it, and a link to either", () => {
    const link = join(base, 'to-state');
    symlinkSync(join(state, 'native'), link);
    for (const path of [join(state, 'native'), base, link]) {
      expect(() => resolveHostPaths([path], [state]), path).toThrow(
        expect.objectContaining({ code: 'POLICY_DENIED', message: expect.stringContaining("headspace's own state") }),
      );
    }
  });

  it('refuses at run a link re-pointed since create, and passes one that still resolves the same', () => {
    const link = join(base, 'swapped');
    symlinkSync(plain, link);
    const recorded = resolveHostPaths([link], [state]);
    expect(verifyHostPaths([link], recorded, [state])).toEqual(recorded);
    const other = join(base, 'other');
    mkdirSync(other);
    unlinkSync(link);
    symlinkSync(other, link);
    expect(() => verifyHostPaths([link], recorded, [state])).toThrow(
      expect.objectContaining({ code: 'POLICY_DENIED', message: expect.stringContaining('not') }),
    );
  });

  it('treats a workspace created before resolutions were recorded as having recorded the path itself', () => {
    expect(verifyHostPaths([plain], undefined, [state])).toEqual({ [plain]: plain });
    const link = join(base, 'old-link');
    symlinkSync(plain, link);
    expect(() => verifyHostPaths([link], undefined, [state])).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
  });

  it('says a missing path does not exist', () => {
    expect(() => resolveHostPaths([join(base, 'nope')], [state])).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
  });
});
