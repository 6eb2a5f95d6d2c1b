/**
 * The docker seccomp profile is the native provider's decision table written
 * for libseccomp: where an ALLOW and a refusal would both match (libseccomp
 * lets the ALLOW win), the refusal is written as an ALLOW of what is left,
 * so no refusing rule ever overlaps an allowing one.
 */
import { expect, it } from 'vitest';
import { dockerSeccompProfile, type SeccompRule } from '../../../../src/providers/docker/seccomp-profile.js';

const profile = dockerSeccompProfile('x86_64');
const rulesOf = (name: string) => profile.syscalls.filter((r) => r.names.includes(name));
const unconditional = (r: SeccompRule) => r.args === undefined;

it('refuses by default and names only the native ABI', () => {
  expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
  expect(profile.architectures).toEqual(['SCMP_ARCH_X86_64']);
  expect(dockerSeccompProfile('aarch64').architectures).toEqual(['SCMP_ARCH_AARCH64']);
});

it('refuses ptrace, modify_ldt, io_setup and memfd_secret with EPERM and skips sync', () => {
  for (const name of ['ptrace', 'modify_ldt', 'io_setup', 'memfd_secret']) {
    expect(rulesOf(name)).toEqual([expect.objectContaining({ action: 'SCMP_ACT_ERRNO', errnoRet: 1 })]);
  }
  expect(rulesOf('sync')).toEqual([expect.objectContaining({ action: 'SCMP_ACT_ERRNO', errnoRet: 0 })]);
});

it('allows clone and hugetlb-capable calls only with the refused bits clear', () => {
  for (const [name, arg] of [
    ['clone', 0],
    ['mmap', 3],
    ['memfd_create', 1],
    ['shmget', 2],
  ] as const) {
    const rules = rulesOf(name);
    expect(rules).toHaveLength(1);
    expect(rules[0]!.action).toBe('SCMP_ACT_ALLOW');
    expect(rules[0]!.args).toEqual([expect.objectContaining({ index: arg, op: 'SCMP_CMP_MASKED_EQ', valueTwo: 0 })]);
  }
});

it('allows socket only for the native families and never beside an unconditional rule', () => {
  const rules = rulesOf('socket');
  expect(rules.some(unconditional)).toBe(false);
  const allowedFamilies = new Set(rules.filter((r) => r.action === 'SCMP_ACT_ALLOW').map((r) => r.args!.find((a) => a.index === 0)!.valueTwo));
  expect([...allowedFamilies].sort((a, b) => a - b)).toEqual([1, 2, 10, 16]);
  // AF_VSOCK (40) is answered EAFNOSUPPORT (97), as native's filter does.
  expect(rules).toContainEqual(
    expect.objectContaining({ action: 'SCMP_ACT_ERRNO', errnoRet: 97, args: [expect.objectContaining({ index: 0, valueTwo: 40 })] }),
  );
});
