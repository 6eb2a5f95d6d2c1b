/**
 * cgroup v1: the runtime ignores KernelMemoryTCP, so the provider writes the
 * planned socket limit to the container's own memory cgroup, found from its
 * init's /proc/<pid>/cgroup — and only when that path names the container.
 */
import { expect, it } from 'vitest';
import { memoryCgroupOf } from '../../../../src/providers/docker/socket-cgroup.js';

const id = 'e682cbd14d2d8477fa84df380a537536ca9abe26ba31acf848a3b85927eb957c';

it('finds the memory hierarchy path that ends in the container id', () => {
  const text = `12:pids:/hs-parent/${id}\n5:memory:/hs-parent/${id}\n3:cpu,cpuacct:/hs-parent/${id}\n0::/\n`;
  expect(memoryCgroupOf(text, id)).toBe(`/hs-parent/${id}`);
  expect(memoryCgroupOf(`7:memory,hugetlb:/docker/${id}\n`, id)).toBe(`/docker/${id}`);
});

it('refuses a pid whose memory cgroup is another container, the root, or absent (cgroup v2)', () => {
  expect(memoryCgroupOf(`5:memory:/hs-parent/${'f'.repeat(64)}\n`, id)).toBeUndefined();
  expect(memoryCgroupOf('5:memory:/\n', id)).toBeUndefined();
  expect(memoryCgroupOf(`0::/hs-parent/${id}\n`, id)).toBeUndefined();
  expect(memoryCgroupOf(`5:memory:/x/\n`, '')).toBeUndefined();
});
