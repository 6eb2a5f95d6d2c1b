/**
 * proc-host-paths flags a host path only as a whole path component run:
 * `/root` matches `/root/.headspace` but not `/newroot`, and the evidence
 * names the /proc file that showed it.
 */
import { describe, expect, it } from 'vitest';
import { containsPath, procHostPaths } from '../../../../src/core/probe/scenarios-isolation.js';
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

  it('is contained when no needle shows anywhere', () => {
    expect(procHostPaths.judge(job('mountinfo: 99 76 0:50 / /workspace rw\ncmdline /proc/1: bwrap --args 3\nprobe-done\n'), { needles }).verdict).toBe('contained');
  });
});
