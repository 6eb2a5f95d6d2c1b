/**
 * The job's syscall filter on docker: the native provider's decision table
 * (native/syscall-rules.ts, one policy for both providers) written as a
 * Docker seccomp profile, passed in SecurityOpt as `seccomp=<json>`.
 *
 * The engine's default profile let through what the probe found
 * (ptrace of an own child, AF_VSOCK into the host VM's vsock space, netlink
 * families, modify_ldt, memfd_secret, io_setup against the host-wide
 * fs.aio-max-nr, hugetlb memory outside the cgroup, TIOCSETD, sync).
 *
 * Translation, checked against the real engine (Docker 20.10, libseccomp
 * 2.5) by the probe, around what libseccomp does with several rules for one
 * syscall: when an ALLOW rule and a refusing rule both match, the ALLOW
 * wins, whatever their order or arguments; and two comparisons of the same
 * argument in one rule keep only one. So:
 *  - the default action is ERRNO (EPERM: this engine ignores
 *    defaultErrnoRet), where native answers ENOSYS for a name on no list;
 *  - a name with a fixed decision is one rule (ALLOW, or ERRNO with its errno;
 *    sync/syncfs ERRNO 0, which skips the call);
 *  - a rule refusing a flag bit (clone's CLONE_NEW*, MAP_HUGETLB,
 *    MFD_HUGETLB, SHM_HUGETLB) is an ALLOW when those bits are clear;
 *  - a rule whose `otherwise` refuses (socket, socketpair, personality) is
 *    one ALLOW rule per path to an ALLOW leaf, its conditions ANDed, plus
 *    ERRNO rules giving native's errno for every other family, type and
 *    protocol (DOMAINS), which match nothing an ALLOW matches;
 *  - a rule refusing a few exact values under an allowing default (ioctl's
 *    TIOCSTI, TIOCLINUX, TIOCSETD) is written as its complement: ALLOW
 *    rules for the aligned blocks of 32-bit values holding none of them
 *    (one MASKED_EQ on the value's high bits per block, about 32 per
 *    refused value), plus one ERRNO rule per refused value with native's
 *    errno. No rule for it is unconditional, so no ALLOW overlaps a
 *    refusal, and a request with upper bits set is still masked to the
 *    low 32 the kernel reads.
 * Comparisons mask the low 32 bits, as the kernel reads an int argument.
 */
import {
  ALLOW,
  ALLOWED_SYSCALLS,
  DENIED_SYSCALLS,
  ENOSYS,
  ENOSYS_SYSCALLS,
  SECCOMP_RET_ERRNO,
  SKIPPED_SYSCALLS,
  ARGUMENT_RULES,
  decisionFor,
  type ArgCheck,
  type Decision,
} from '../native/syscall-rules.js';

export interface SeccompArg {
  index: number;
  value: number;
  valueTwo: number;
  op: 'SCMP_CMP_MASKED_EQ';
}

export interface SeccompRule {
  names: string[];
  action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_ERRNO';
  errnoRet?: number;
  args?: SeccompArg[];
}

export interface SeccompProfile {
  defaultAction: 'SCMP_ACT_ERRNO';
  defaultErrnoRet: number;
  architectures: string[];
  syscalls: SeccompRule[];
}

const LOW32 = 0xffffffff;

function errnoOf(decision: number): number {
  return (decision - SECCOMP_RET_ERRNO) >>> 0;
}

function asRule(name: string, decision: number, args?: SeccompArg[]): SeccompRule {
  const base =
    decision === ALLOW
      ? { names: [name], action: 'SCMP_ACT_ALLOW' as const }
      : { names: [name], action: 'SCMP_ACT_ERRNO' as const, errnoRet: errnoOf(decision) };
  return args === undefined || args.length === 0 ? base : { ...base, args };
}

/** `arg & mask == value` on the low 32 bits. */
function masked(index: number, mask: number, value: number): SeccompArg {
  return { index, value: (mask & LOW32) >>> 0, valueTwo: (value & mask & LOW32) >>> 0, op: 'SCMP_CMP_MASKED_EQ' };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/**
 * Values to spell out refusals over, per syscall and argument: every address
 * family (0–45), socket type (0–10), and protocol number below 32 (every
 * netlink protocol) plus the IP protocols above it (IPv6 ICMP, SCTP,
 * UDP-Lite, MPTCP, …). A value outside them is still refused, with EPERM.
 */
const PROTOCOLS = [...range(32), 33, 41, 46, 47, 50, 51, 58, 92, 94, 103, 108, 132, 136, 137, 143, 255, 256, 262];
const DOMAINS: Readonly<Record<string, readonly number[]>> = {
  'socket:0': range(46),
  'socket:1': range(11),
  'socket:2': PROTOCOLS,
  'socketpair:0': range(46),
  'socketpair:1': range(11),
  'socketpair:2': PROTOCOLS,
};

function matchOf(check: ArgCheck, value: number): SeccompArg {
  return masked(check.arg, check.mask ?? LOW32, value);
}

/** ALLOW rules for every path to an ALLOW leaf, and ERRNO rules with native's errno for the values a domain spells out. */
function pathRules(name: string, decision: Decision, conds: SeccompArg[]): SeccompRule[] {
  if (typeof decision === 'number') return decision === ALLOW ? [asRule(name, ALLOW, conds)] : conds.length > 0 ? [asRule(name, decision, conds)] : [];
  if (decision.otherwise === ALLOW) throw new RangeError(`${name}: a nested check that allows by default cannot be written`);
  const rules: SeccompRule[] = [];
  for (const c of decision.cases) {
    if (c.when !== 'equals') throw new RangeError(`${name}: only equality leads to an ALLOW path`);
    rules.push(...pathRules(name, c.then, [...conds, matchOf(decision, c.value)]));
  }
  const domain = DOMAINS[`${name}:${decision.arg}`];
  if (domain !== undefined && typeof decision.otherwise === 'number') {
    const named = new Set(decision.cases.map((c) => c.value));
    for (const value of domain) if (!named.has(value)) rules.push(asRule(name, decision.otherwise, [...conds, matchOf(decision, value)]));
  }
  return rules;
}

/**
 * Pure: the aligned blocks (`value & mask == value`, mask = the top bits)
 * that together hold every 32-bit value except `refused`, and nothing else:
 * the siblings along each refused value's path in a binary trie of the bits.
 */
export function complementBlocks(refused: readonly number[]): Array<{ mask: number; value: number }> {
  const values = [...new Set(refused.map((v) => v >>> 0))];
  const blocks: Array<{ mask: number; value: number }> = [];
  const visit = (prefix: number, bits: number) => {
    const mask = bits === 0 ? 0 : (LOW32 << (32 - bits)) >>> 0;
    const inside = values.filter((v) => (v & mask) >>> 0 === prefix);
    if (inside.length === 0) blocks.push({ mask, value: prefix });
    else if (bits < 32) {
      visit(prefix, bits + 1);
      visit((prefix | (1 << (31 - bits))) >>> 0, bits + 1);
    }
  };
  visit(0, 0);
  return blocks;
}

function rulesFor(name: string, decision: Decision): SeccompRule[] {
  if (typeof decision === 'number') return [asRule(name, decision)];
  if (decision.otherwise === ALLOW) {
    const bits = decision.cases.filter((c) => c.when === 'any-bit-of');
    if (bits.length === decision.cases.length && bits.length > 0) {
      // Refused flag bits: allowed exactly when none of them is set.
      const mask = bits.reduce((m, c) => (m | c.value) >>> 0, 0);
      return [asRule(name, ALLOW, [masked(decision.arg, mask, 0)])];
    }
    const values = decision.cases.filter((c) => c.when === 'equals');
    if (values.length === decision.cases.length && values.length > 0) {
      // Refused values under an allowing default (ioctl): an ALLOW of every block without them, and the refusals themselves.
      const refusals = values.filter((c) => c.then !== ALLOW);
      if (refusals.some((c) => typeof c.then !== 'number')) throw new RangeError(`${name}: a nested check under an allowing default cannot be written`);
      const allowed = complementBlocks(refusals.map((c) => c.value)).map((b) => asRule(name, ALLOW, [masked(decision.arg, b.mask, b.value)]));
      return [...allowed, ...refusals.map((c) => asRule(name, c.then as number, [matchOf(decision, c.value)]))];
    }
    throw new RangeError(`${name}: a rule mixing flag bits and values under an allowing default cannot be written`);
  }
  return pathRules(name, decision, []);
}

/** The profile for an engine on `arch` (Docker's Architecture: x86_64 or aarch64). */
export function dockerSeccompProfile(arch: string): SeccompProfile {
  const names = new Set<string>([...ALLOWED_SYSCALLS, ...DENIED_SYSCALLS, ...ENOSYS_SYSCALLS, ...SKIPPED_SYSCALLS, ...Object.keys(ARGUMENT_RULES)]);
  const syscalls: SeccompRule[] = [];
  // Fixed decisions grouped by outcome, so the profile stays small; argument rules one by one.
  const grouped = new Map<string, SeccompRule>();
  for (const name of [...names].sort()) {
    const decision = decisionFor(name);
    if (typeof decision === 'number') {
      const key = String(decision);
      const rule = grouped.get(key) ?? asRule(name, decision);
      if (grouped.has(key)) rule.names.push(name);
      else grouped.set(key, rule);
    } else syscalls.push(...rulesFor(name, decision as ArgCheck));
  }
  return {
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: ENOSYS, // honoured by newer engines; 20.10 answers EPERM
    // Only the native ABI: a syscall through another (x32, the 32-bit int 0x80 entry) is killed as a bad architecture.
    architectures: [arch === 'aarch64' || arch === 'arm64' ? 'SCMP_ARCH_AARCH64' : 'SCMP_ARCH_X86_64'],
    syscalls: [...grouped.values(), ...syscalls],
  };
}
