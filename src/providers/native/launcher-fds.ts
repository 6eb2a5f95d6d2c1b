/**
 * The descriptor layout between node, the launcher (helper/headspace-exec.c
 * `--launch`), bwrap and the job entry. The C side keeps fds 3–8 open,
 * closes everything else, and opens its own executable at 9; change both
 * together.
 *
 *   3  bwrap's `--args` (the NUL-separated bwrap arguments)
 *   4  bwrap's `--seccomp` program
 *   5  the launcher's status and go-message socket
 *   6–8  the generated /etc/passwd, /etc/group, /etc/hosts, which bwrap
 *        writes into the sandbox with `--file` (no bind: a bind's root would
 *        name its host path in the job's /proc/self/mountinfo)
 *   9  the launcher's own executable; bwrap starts the job entry as
 *      /proc/self/fd/9, again so that no host path is bound
 */
export const ARGS_FD = 3;
export const SECCOMP_FD = 4;
export const STATUS_FD = 5;
/** In the order of GENERATED_FILES (runtime-files.ts). */
export const GENERATED_FILE_FDS = [6, 7, 8] as const;
export const EXEC_HELPER_FD = 9;
/** What bwrap executes inside: the shim through the launcher's descriptor (the job entry closes it before the command). */
export const EXEC_HELPER_ENTRY = `/proc/self/fd/${EXEC_HELPER_FD}`;
