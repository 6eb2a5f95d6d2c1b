/**
 * proc-host-paths flags a host path only as a whole path component run:
 * `/root` matches `/root/.headspace` but not `/newroot`, and the evidence
 * names the /proc file that showed it. Besides HEADSPACE_HOME and the home
 * directory it looks for the native provider's runtime directory, from
 * which binds named `/run/headspace-native/<tag>/runtime/<id>/passwd`.
 */
import { describe, expect, it } from 'vitest';
import type { ProbeHost } from '../../../../src/core/probe/probe-types.js';
import { containsPath, HEADSPACE_RUNTIME_DIR, procHostPaths } from '../../../../src/core/probe/scenarios-isolation.js';
import { job } from './facts.js';

describe('containsPath', () => {
  it('matches a path followed by a slash, whitespace or the end', () => {
    expect(containsPath('76 47 0:39 /root/.headspace/native /workspace', '/root')).toBe(true);
    expect(containsPath('cmdline /proc/1: sh /root', '/root')).toBe(true);
  });

  it('does not match a longer name that merely starts the same', () => {
    expect(containsPath('76 47 0:39 /newroot / ro', '/root')).toBe(false);
    expect(containsPath('/rootfs/x', '/root')).toBe(false);
  });
});

describe('proc-host-paths', () => {
  const needles = [{ name: 'HEADSPACE_HOME', path: '/tmp/hs-cli-abc' }];

  it('escapes when mountinfo shows HEADSPACE_HOME, and keeps that line for the excerpt', () => {
    const line = 'mountinfo: 99 76 254:0 /tmp/hs-cli-abc/native/workspaces/w/files /workspace rw - ext4 /dev/vda rw';
    const verdict = procHostPaths.judge(job(`mountinfo: 76 47 0:39 /newroot / ro\n${line}\nprobe-done\n`), { needles });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('/proc/self/mountinfo'), lines: [line] });
  });

  it("looks for headspace's runtime directory too, and escapes on a bind from it", async () => {
    const attempt = await procHostPaths.prepare({ home: '/tmp/hs-cli-abc' } as ProbeHost);
    const { needles: planned } = await attempt.observe({ status: 'success', exitCode: 0, output: '' });
    expect(planned.map((n) => n.path)).toContain(HEADSPACE_RUNTIME_DIR);
    const line = 'mountinfo: 82 73 254:0 /run/headspace-native/0ecd7dfa36/runtime/t1/passwd /etc/passwd ro,nosuid - ext4 /dev/vda rw';
    expect(procHostPaths.judge(job(`${line}\nprobe-done\n`), { needles: planned })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining("headspace's runtime directory"),
    });
  });

  it('is contained when no needle shows anywhere', () => {
    expect(procHostPaths.judge(job('mountinfo: 99 76 0:50 / /workspace rw\ncmdline /proc/1: bwrap --args 3\nprobe-done\n'), { needles }).verdict).toBe(
      'contained',
    );
  });
});
