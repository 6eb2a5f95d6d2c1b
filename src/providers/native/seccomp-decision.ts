/**
 * The values a seccomp filter returns and the shape of a per-syscall
 * decision: a return value, or a test of one argument word leading to
 * further decisions. Shared by the rule files and the code generator.
 */

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;
export const EPROTONOSUPPORT = 93;
export const ESOCKTNOSUPPORT = 94;
export const EOPNOTSUPP = 95;
export const EAFNOSUPPORT = 97;

export const ALLOW = SECCOMP_RET_ALLOW;
export const KILL = SECCOMP_RET_KILL_PROCESS;
export const errno = (code: number): number => (SECCOMP_RET_ERRNO | code) >>> 0;
/**
 * SECCOMP_RET_ERRNO with data 0: the kernel skips the call and sets its
 * return value to -0, so the caller sees success without the call running
 * (kernel/seccomp.c, `syscall_set_return_value(..., -data, 0)`; checked on
 * the real kernel by seccomp-errno-zero-skips-the-call.test.ts).
 */
export const SKIP_AS_SUCCESS = errno(0);

/** A decision: a seccomp return value, or a test of one argument word leading to further decisions. */
export type Decision = number | ArgCheck;
export interface ArgCheck {
  /** Which argument's low 32 bits (0–5). */
  arg: number;
  /** ANDed into the word before the cases compare (e.g. to drop SOCK_NONBLOCK | SOCK_CLOEXEC from socket's type); undefined: the word as is. */
  mask?: number;
  /** Tried in order; the first that matches decides. */
  cases: ReadonlyArray<{ when: 'equals' | 'any-bit-of'; value: number; then: Decision }>;
  otherwise: Decision;
}
