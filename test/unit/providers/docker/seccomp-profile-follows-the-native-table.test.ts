/**
 * The docker seccomp profile is the native provider's decision table written
 * for libseccomp: where an ALLOW and a refusal would both match (libseccomp
 * lets the ALLOW win), the refusal is written as an ALLOW of what is left,
 * so no refusing rule ever overlaps an allowing one.
 */
import { expect, it } from 'vitest';
import { complementBlocks, dockerSeccompProfile, type SeccompRule } from '../../../../src/providers/docker/seccomp-profile.js';

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

it('allows ioctl for every request but TIOCSTI, TIOCLINUX and TIOCSETD, which it refuses with EPERM, and never unconditionally', () => {
  const rules = rulesOf('ioctl');
  expect(rules.some(unconditional)).toBe(false);
  for (const r of rules) expect(r.args).toEqual([expect.objectContaining({ index: 1, op: 'SCMP_CMP_MASKED_EQ' })]);
  const allows = rules.filter((r) => r.action === 'SCMP_ACT_ALLOW').map((r) => r.args![0]!);
  const refusals = rules.filter((r) => r.action === 'SCMP_ACT_ERRNO');
  expect(refusals.map((r) => [r.errnoRet, r.args![0]!.valueTwo])).toEqual([
    [1, 0x5412],
    [1, 0x541c],
    [1, 0x5423],
  ]);
  // What the kernel's filter would decide for a request, read off the profile as libseccomp compiles it.
  const allowedBy = (request: number) => allows.filter((a) => (request & a.value) >>> 0 === a.valueTwo).length;
  for (const refused of [0x5412, 0x541c, 0x5423]) expect(allowedBy(refused)).toBe(0);
  // Exactly one block holds every other request: common terminal, file and socket requests, and the extremes.
  for (const request of [0, 1, 0x5401, 0x5411, 0x5413, 0x541b, 0x541d, 0x5422, 0x5424, 0x5421, 0x541b, 0x8912, 0x40045431, 0x80086601, 0xc0186201, 0xffffffff])
    expect(allowedBy(request)).toBe(1);
  expect(allows.length).toBeLessThanOrEqual(3 * 32);
});

it('writes the complement of refused values as disjoint aligned blocks', () => {
  expect(complementBlocks([])).toEqual([{ mask: 0, value: 0 }]);
  expect(complementBlocks([0xffffffff])).toHaveLength(32);
  const blocks = complementBlocks([5, 6, 0x80000000]);
  const size = (b: { mask: number }) => 2 ** 32 - b.mask;
  // Disjoint and covering all but the three values.
  expect(blocks.reduce((sum, b) => sum + size(b), 0)).toBe(2 ** 32 - 3);
  for (const v of [5, 6, 0x80000000]) expect(blocks.some((b) => (v & b.mask) >>> 0 === b.value)).toBe(false);
});
