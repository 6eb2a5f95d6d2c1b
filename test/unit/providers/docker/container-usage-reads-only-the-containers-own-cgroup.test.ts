/**
 * docker's liveUsage reads the container's cgroup through its init's
 * /proc/<pid>/cgroup (#17): each controller's path is taken only when it
 * ends in the container's id, so a reused pid in another cgroup yields
 * nothing (the Engine's stats are asked instead), never another's figures.
 */
import { describe, expect, it } from 'vitest';
import { containerCgroups } from '../../../../src/providers/docker/container-usage.js';

const ID = 'a'.repeat(64);

describe('the container’s cgroups from /proc/<pid>/cgroup', () => {
  it('maps each v1 controller, and the v2 hierarchy, to the path naming the container', () => {
    const text = [
      `12:pids:/docker/${ID}`,
      `5:cpu,cpuacct:/docker/${ID}`,
      `4:memory:/docker/${ID}`,
      '1:name=systemd:/init.scope',
      `0::/system.slice/docker-x.scope/${ID}`,
    ].join('\n');
    const found = containerCgroups(text, ID);
    expect(found.get('pids')).toBe(`/docker/${ID}`);
    expect(found.get('cpuacct')).toBe(`/docker/${ID}`);
    expect(found.get('memory')).toBe(`/docker/${ID}`);
    expect(found.get('')).toBe(`/system.slice/docker-x.scope/${ID}`);
    expect(found.has('name=systemd')).toBe(false);
  });

  it('yields nothing for a process in another cgroup, or for an id too short to tell', () => {
    expect(containerCgroups(`4:memory:/docker/${'b'.repeat(64)}\n0::/user.slice`, ID).size).toBe(0);
    expect(containerCgroups(`4:memory:/docker/abc`, 'abc').size).toBe(0);
  });
});
