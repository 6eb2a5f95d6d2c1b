/*
 * headspace-exec: the native provider's exec shim (issue #10 items 1 and 13).
 * libc only; built by scripts/build-native-helper.sh. It never forks, and
 * adds no exec to a job's path: as the launcher it replaces the `sh` that
 * placed itself in the cgroups, and inside it replaces `sh -c 'exec "$@"'`.
 *
 *   headspace-exec --abi
 *       Prints the kernel's Landlock ABI version (0 when it has none) and,
 *       when 0, why, on one line. The provider probes this once.
 *
 *   headspace-exec --launch NAME PROCS_FILE...
 *       The job launcher (launch-job.ts), spawned by node with bwrap's
 *       --args and --seccomp pipes at fds 3 and 4, a status pipe at 5 and
 *       the generated /etc files' pipes at 6-8 (launcher-fds.ts has the
 *       layout). First closes every other descriptor >= 3: whatever the caller of
 *       headspace left open without close-on-exec (a shell's `exec 200</`,
 *       a parent tool's pipe) dies here, before bwrap; a directory
 *       descriptor let a job walk `..` to the host's / (#10 item 1). Then it
 *       writes its own pid into each cgroup.procs file (race-free placement:
 *       nothing has forked yet; exit 125 if one fails), writes `k` on fd 5, reads the go message from fd 5 (the argv
 *       to exec, each argument NUL-terminated, then EOF; EOF alone means node
 *       went away: exit 0), closes fd 5 and runs it as its one child, then
 *       reaps that child and every orphan it leaves (see reap_job below) and
 *       exits as the child did. NAME marks the process in /proc/PID/cmdline as
 *       an idle launcher until then.
 *
 *   headspace-exec [--rlimit NAME SOFT HARD]... [--umask OCTAL] [--relay SOCKET PORT PORT] [--landlock] [RULE PATH]... -- COMMAND ARG...
 *       Inside the sandbox, as the job's entry point: closes every
 *       descriptor >= 3 again (defence in depth), sets each planned resource
 *       limit (plan-rlimits.ts: the caller's own limits never reach the job;
 *       a value above the inherited hard limit is lowered to it, since only
 *       lowering needs no privilege) and the umask, sets no_new_privs, applies a
 *       Landlock ruleset made of the RULEs when --landlock is given and the
 *       kernel has Landlock, then execvp()s COMMAND. Exits 127 when COMMAND is
 *       not found and 126 when it cannot be executed (what `sh -c 'exec "$@"'`
 *       did before, so "not found" stays distinguishable from a failing job).
 *       RULEs: --rx (read and execute), --rw (everything), --dev (read/write
 *       a device node), --read (read files and list directories), --list (list
 *       directories only). A PATH that does not exist is skipped.
 *       --relay (a workspace with a network allow-list, #18): after the
 *       Landlock ruleset, listens on 127.0.0.1:PORT (the HTTP proxy and the
 *       SOCKS5 port) in the job's own network namespace and starts one relay
 *       process (a double fork, so it is bwrap's child, not the job's) that
 *       carries each connection, byte for byte, to the unix SOCKET bound
 *       into the sandbox: the engine's egress proxy on the host decides
 *       everything. The relay is poll-based, holds at most RELAY_PAIRS
 *       connections, and dies with the sandbox's pid namespace.
 *
 *   headspace-exec --idmap-bind SRC DST FROM_UID TO_UID FROM_GID TO_GID
 *       Host side, as root (#14, a fork's inherited layers): mounts an
 *       idmapped bind of directory SRC at DST, on which an inode owned on
 *       disk by FROM_UID (FROM_GID) shows as owned by TO_UID (TO_GID); root
 *       (0) stays itself, every other id shows as the overflow id (65534).
 *       The mapping is a user namespace made by a forked child that only
 *       unshares and waits (the parent writes its uid_map and gid_map: the
 *       line "FROM TO 1", inside FROM = outside TO, verified by experiment:
 *       an idmapped mount presents disk id k as the outside id that the
 *       namespace's inside k maps to), then open_tree(OPEN_TREE_CLONE),
 *       mount_setattr(MOUNT_ATTR_IDMAP) and move_mount. Exit 0 when mounted,
 *       125 otherwise (nothing mounted).
 *
 * Exit 125 is this shim's own failure (bad arguments, a Landlock call that
 * failed on a kernel that has Landlock): it fails closed, never runs the job
 * unconfined when confinement was asked for and is available.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Debian 12's headers stop at Landlock ABI 2; these are the kernel's UAPI values. */
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* The new mount API (Linux 5.2/5.12): one syscall number on every architecture but alpha; old headers lack them. */
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#define HS_OPEN_TREE_CLONE 1
#define HS_AT_EMPTY_PATH 0x1000
#define HS_MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define HS_MOUNT_ATTR_IDMAP 0x00100000ULL

struct hs_mount_attr {
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
};

#define HS_CREATE_RULESET_VERSION (1U << 0)
#define HS_RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)     /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */

#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

/* Rights that make sense on a file (not a directory) rule; others are EINVAL there. */
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

struct hs_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};

struct hs_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

static int landlock_abi(void) {
  long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, HS_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

static uint64_t handled_fs_for(int abi) {
  uint64_t all = (FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0-12 */
  if (abi >= 2) all |= FS_REFER;
  if (abi >= 3) all |= FS_TRUNCATE;
  if (abi >= 5) all |= FS_IOCTL_DEV;
  return all;
}

static void die(const char *what) {
  fprintf(stderr, "headspace-exec: %s: %s\n", what, strerror(errno));
  _exit(125);
}

static void usage(const char *what) {
  fprintf(stderr, "headspace-exec: %s\n", what);
  _exit(125);
}

/* Closes every descriptor >= 3 not in keep (sorted ascending, each >= 3). */
static void close_fds_from_3(const int *keep, int nkeep) {
  unsigned int from = 3;
  for (int i = 0; i <= nkeep; i++) {
    unsigned int to = i < nkeep ? (unsigned int)keep[i] - 1 : ~0U;
    if (to >= from && syscall(__NR_close_range, from, to, 0) != 0) {
      if (errno != ENOSYS && errno != EPERM) die("close_range");
      /* Kernels before 5.9 (or a filter that refuses it): walk /proc/self/fd. */
      DIR *dir = opendir("/proc/self/fd");
      if (dir == NULL) die("cannot list /proc/self/fd to close inherited descriptors");
      int self = dirfd(dir);
      struct dirent *entry;
      int victims[1024];
      int n = 0;
      while ((entry = readdir(dir)) != NULL && n < 1024) {
        char *end;
        long fd = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || entry->d_name[0] == '\0' || fd == self) continue;
        if ((unsigned long)fd >= from && (unsigned long)fd <= to) victims[n++] = (int)fd;
      }
      closedir(dir);
      if (n == 1024) usage("too many inherited descriptors to close");
      for (int j = 0; j < n; j++) close(victims[j]);
    }
    if (i < nkeep) from = (unsigned int)keep[i] + 1;
  }
}

static void add_rule(int ruleset, const char *path, uint64_t wanted, uint64_t handled) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return; /* not in this sandbox: nothing to allow */
    die(path);
  }
  struct stat info;
  if (fstat(fd, &info) != 0) die(path);
  uint64_t allowed = wanted & handled;
  if (!S_ISDIR(info.st_mode)) allowed &= FS_FILE_RIGHTS;
  if (allowed != 0) {
    struct hs_path_beneath_attr attr = {.allowed_access = allowed, .parent_fd = fd};
    if (syscall(__NR_landlock_add_rule, ruleset, HS_RULE_PATH_BENEATH, &attr, 0) != 0) die(path);
  }
  close(fd);
}

static uint64_t rights_of(const char *rule) {
  const uint64_t rx = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
  if (strcmp(rule, "--rx") == 0) return rx;
  if (strcmp(rule, "--read") == 0) return FS_READ_FILE | FS_READ_DIR;
  if (strcmp(rule, "--list") == 0) return FS_READ_DIR;
  if (strcmp(rule, "--dev") == 0) return FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
  if (strcmp(rule, "--rw") == 0) return ~0ULL;
  return 0;
}

/*
 * TCP (ABI 4) is deliberately not handled: the job already has a network
 * namespace of its own with only loopback, so Landlock would add nothing
 * there, while handling it would refuse every bind/connect, including a
 * test server on the job's own loopback.
 */
static void apply_landlock(char **rules, int nrules) {
  int abi = landlock_abi();
  if (abi < 1) return; /* the kernel has none: capabilities() says so; the other layers still hold */
  uint64_t handled = handled_fs_for(abi);
  struct hs_ruleset_attr attr = {.handled_access_fs = handled, .handled_access_net = 0, .scoped = 0};
  size_t size = sizeof(uint64_t);
  if (abi >= 6) {
    /* Signals and abstract unix sockets reach only this job's own domain. */
    attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    size = sizeof(attr);
  }
  int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) die("landlock_create_ruleset");
  for (int i = 0; i + 1 < nrules; i += 2) add_rule(ruleset, rules[i + 1], rights_of(rules[i]), handled);
  if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self");
  close(ruleset);
}

struct hs_rlimit_name {
  const char *name;
  int resource;
};

static const struct hs_rlimit_name RLIMIT_NAMES[] = {
    {"AS", RLIMIT_AS},         {"CORE", RLIMIT_CORE},       {"CPU", RLIMIT_CPU},       {"DATA", RLIMIT_DATA},
    {"FSIZE", RLIMIT_FSIZE},   {"LOCKS", RLIMIT_LOCKS},     {"MEMLOCK", RLIMIT_MEMLOCK}, {"MSGQUEUE", RLIMIT_MSGQUEUE},
    {"NICE", RLIMIT_NICE},     {"NOFILE", RLIMIT_NOFILE},   {"NPROC", RLIMIT_NPROC},   {"RSS", RLIMIT_RSS},
    {"RTPRIO", RLIMIT_RTPRIO}, {"RTTIME", RLIMIT_RTTIME},   {"SIGPENDING", RLIMIT_SIGPENDING}, {"STACK", RLIMIT_STACK},
};

static int rlimit_resource(const char *name) {
  for (size_t i = 0; i < sizeof RLIMIT_NAMES / sizeof RLIMIT_NAMES[0]; i++)
    if (strcmp(RLIMIT_NAMES[i].name, name) == 0) return RLIMIT_NAMES[i].resource;
  return -1;
}

/* "unlimited" or a decimal count; exits 125 on anything else (the planner sends only these). */
static rlim_t parse_limit(const char *text) {
  if (strcmp(text, "unlimited") == 0) return RLIM_INFINITY;
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') usage("an rlimit value is a decimal count or unlimited");
  return (rlim_t)value;
}

/*
 * Sets one planned limit. Never raises past the inherited hard limit: that
 * needs CAP_SYS_RESOURCE, which the job entry lacks, so a caller that had
 * already lowered a hard limit keeps it (lower is the safe side). Any other
 * failure fails closed (exit 125): a job must never run with the caller's
 * limits when ours were asked for.
 */
static void set_limit(const char *name, const char *soft_text, const char *hard_text) {
  int resource = rlimit_resource(name);
  if (resource < 0) usage("unknown rlimit name");
  struct rlimit current;
  if (getrlimit(resource, &current) != 0) die("getrlimit");
  rlim_t hard = parse_limit(hard_text);
  rlim_t soft = parse_limit(soft_text);
  if (current.rlim_max != RLIM_INFINITY && (hard == RLIM_INFINITY || hard > current.rlim_max)) hard = current.rlim_max;
  if (soft == RLIM_INFINITY || (hard != RLIM_INFINITY && soft > hard)) soft = hard;
  struct rlimit wanted = {.rlim_cur = soft, .rlim_max = hard};
  if (setrlimit(resource, &wanted) != 0) die(name);
}

/* Reads fd until EOF into a NUL-separated argv; NULL on EOF with no data. */
static char **read_go_message(int fd) {
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (buf == NULL) die("malloc");
  for (;;) {
    if (len == cap) {
      cap *= 2;
      if (cap > (64u << 20)) usage("go message too large");
      buf = realloc(buf, cap);
      if (buf == NULL) die("realloc");
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read go message");
    if (n == 0) break;
    len += (size_t)n;
  }
  if (len == 0) return NULL;
  if (buf[len - 1] != '\0') usage("go message must end with a NUL");
  size_t count = 0;
  for (size_t i = 0; i < len; i++) count += buf[i] == '\0';
  char **argv = calloc(count + 1, sizeof(char *));
  if (argv == NULL) die("calloc");
  size_t k = 0;
  for (size_t i = 0; i < len; i += strlen(buf + i) + 1) argv[k++] = buf + i;
  return argv;
}

/* The launcher's descriptors (launcher-fds.ts): 3 bwrap args, 4 seccomp, 5 status, 6-8 generated /etc files; 9 its own executable. */
#define LAUNCH_HELPER_FD 9

/*
 * What the caller's scheduling and execution domain would hand every job
 * (red team round 3): ASLR off under `setarch -R` or a debugger, a negative
 * nice, a realtime CPU or I/O class. Each is reset to the ordinary default
 * before the launcher places itself (a realtime task cannot even join a
 * cgroup without an RT budget); lowering needs no privilege. Failing closed:
 * a job must never start with what could not be reset.
 */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_BE 2
#define IOPRIO_PRIO_VALUE(class, data) (((class) << 13) | (data))

static void reset_inherited_scheduling(void) {
  if (personality(PER_LINUX) == -1) die("personality");
  struct sched_param param = {0};
  if (sched_setscheduler(0, SCHED_OTHER, &param) != 0) die("sched_setscheduler");
  errno = 0;
  int nice_now = getpriority(PRIO_PROCESS, 0);
  if (errno == 0 && nice_now < 0 && setpriority(PRIO_PROCESS, 0, 0) != 0) die("setpriority");
  if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)) != 0 && errno != ENOSYS) die("ioprio_set");
}

/*
 * Why the launcher does not exec bwrap itself: bwrap's outer process exits as
 * soon as the namespace's pid 1 (bwrap's init) reports the command's status,
 * and that init, orphaned, is left to the host's PID 1 to reap. A PID 1 that
 * reaps late or never (this VM's init; a container whose PID 1 is node) kept
 * one zombie per job charged to the workspace's pids budget, until bwrap
 * could not fork (EAGAIN) after ~130 jobs. So the launcher keeps its pid
 * (what node and the cgroups know), becomes a child subreaper, runs the go
 * argv as its one child, reaps it and, for at most a second, every orphan it
 * leaves (bwrap's init exits at once), then exits as the child did (code, or the same signal). It dies
 * with its parent (PR_SET_PDEATHSIG), as bwrap's --die-with-parent did when
 * node was bwrap's parent: bwrap now dies with this launcher, and so with node.
 */
static void on_alarm(int sig) { (void)sig; }

static void run_and_reap(char **go, pid_t parent) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)");
  if (getppid() != parent) _exit(0); /* node went away before the line above */
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("prctl(PR_SET_CHILD_SUBREAPER)");
  pid_t child = fork();
  if (child < 0) die("fork (job)");
  if (child == 0) {
    execv(go[0], go);
    die(go[0]);
  }
  /* Only the child needs the pipes to bwrap and the helper's descriptor; stdio stays (node reads it to EOF). */
  for (int fd = 3; fd <= LAUNCH_HELPER_FD; fd++) close(fd);
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) die("waitpid (job)");
  /* Blocking, so the orphan is reaped the moment it exits (polling cost a millisecond a job); the alarm bounds it. */
  struct sigaction wake;
  memset(&wake, 0, sizeof wake);
  wake.sa_handler = on_alarm; /* no SA_RESTART: the alarm interrupts waitpid */
  sigemptyset(&wake.sa_mask);
  sigaction(SIGALRM, &wake, NULL);
  alarm(1);
  while (waitpid(-1, NULL, 0) >= 0) {
  } /* ECHILD: none left; EINTR: the alarm */
  alarm(0);
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WTERMSIG(status);
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  signal(sig, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sigprocmask(SIG_UNBLOCK, &only, NULL);
  raise(sig);
  _exit(128 + sig);
}

static void launch(int nprocs, char **procs) {
  const pid_t parent = getppid();
  const int keep[] = {3, 4, 5, 6, 7, 8};
  close_fds_from_3(keep, 6);
  reset_inherited_scheduling();
  char pid[32];
  int pidlen = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
  for (int i = 0; i < nprocs; i++) {
    int fd = open(procs[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, pid, (size_t)pidlen) != pidlen) {
      fprintf(stderr, "headspace-exec: cannot place the launcher in %s: %s\n", procs[i], strerror(errno));
      _exit(125);
    }
    close(fd);
  }
  if (write(5, "k", 1) != 1) _exit(0); /* node is gone */
  char **go = read_go_message(5);
  if (go == NULL) _exit(0);
  close(5);
  if (go[0][0] != '/') usage("the go message must start with an absolute path");
  /*
   * bwrap starts the job entry as /proc/self/fd/9 rather than through a bind
   * of this file: a bind's root names the host path of the runtime directory
   * in the job's /proc/self/mountinfo. Not close-on-exec, so bwrap (and
   * setpriv before it) pass it on; the job entry closes it before the command.
   */
  int self = open("/proc/self/exe", O_RDONLY);
  if (self < 0) die("cannot open /proc/self/exe");
  if (self != LAUNCH_HELPER_FD) {
    if (dup2(self, LAUNCH_HELPER_FD) != LAUNCH_HELPER_FD) die("dup2 of the helper descriptor");
    close(self);
  }
  run_and_reap(go, parent);
}

/*
 * The in-sandbox half of the egress path (#18). Dumb on purpose: it never
 * parses what it carries, so nothing a job sends can make it decide
 * anything; the host proxy parses and decides. Bounded: RELAY_PAIRS
 * connections at once (fewer when RLIMIT_NOFILE is lower), RELAY_BUF bytes
 * buffered per direction, reads stop while a buffer is full (backpressure).
 */
#define RELAY_PAIRS 64
#define RELAY_BUF 65536

struct relay_half {
  char *buf;
  size_t len, off;
  int eof;  /* the reading side ended */
  int shut; /* the writing side was shut down after the buffer drained */
};

struct relay_pair {
  int fd[2]; /* 0: the job's TCP connection, 1: the host proxy's unix socket */
  struct relay_half dir[2]; /* dir[i]: bytes read from fd[i], to write to fd[1-i] */
};

static void relay_close(struct relay_pair *p) {
  close(p->fd[0]);
  close(p->fd[1]);
  free(p->dir[0].buf);
  free(p->dir[1].buf);
  p->fd[0] = p->fd[1] = -1;
}

static int relay_listen(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) die("relay socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("relay bind");
  if (listen(fd, 64) != 0) die("relay listen");
  return fd;
}

static int relay_connect_host(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

static void relay_loop(const char *path, int listeners[2], int max_pairs) {
  struct relay_pair pairs[RELAY_PAIRS];
  for (int i = 0; i < RELAY_PAIRS; i++) pairs[i].fd[0] = pairs[i].fd[1] = -1;
  struct pollfd fds[2 + 2 * RELAY_PAIRS];
  for (;;) {
    int n = 0, free_slot = -1;
    for (int l = 0; l < 2; l++) fds[n++] = (struct pollfd){.fd = listeners[l], .events = POLLIN};
    for (int i = 0; i < max_pairs; i++) {
      struct relay_pair *p = &pairs[i];
      if (p->fd[0] < 0) {
        if (free_slot < 0) free_slot = i;
        fds[n++] = (struct pollfd){.fd = -1};
        fds[n++] = (struct pollfd){.fd = -1};
        continue;
      }
      for (int s = 0; s < 2; s++) {
        short ev = 0;
        if (!p->dir[s].eof && p->dir[s].len == 0) ev |= POLLIN;
        if (p->dir[1 - s].len > 0) ev |= POLLOUT;
        fds[n++] = (struct pollfd){.fd = p->fd[s], .events = ev};
      }
    }
    /* No free slot: leave new connections in the backlog until one is. */
    if (free_slot < 0) fds[0].fd = fds[1].fd = -1;
    if (poll(fds, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      _exit(125);
    }
    for (int l = 0; l < 2 && free_slot >= 0; l++) {
      if (!(fds[l].revents & POLLIN)) continue;
      int client = accept4(listeners[l], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (client < 0) continue;
      /* The relay forwards whatever arrives, often a TLS record in several pieces: with Nagle on, each
       * piece after the first waits for the client's delayed ACK (40 ms), a stall per handshake flight
       * that a TLS-terminating proxy (secrets at egress, #18) made visible. Best effort. */
      int nodelay = 1;
      setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
      int host = relay_connect_host(path);
      char *a = malloc(RELAY_BUF), *b = malloc(RELAY_BUF);
      if (host < 0 || a == NULL || b == NULL) {
        close(client);
        if (host >= 0) close(host);
        free(a);
        free(b);
        continue;
      }
      struct relay_pair *p = &pairs[free_slot];
      *p = (struct relay_pair){.fd = {client, host}, .dir = {{.buf = a}, {.buf = b}}};
      free_slot = -1;
      for (int i = 0; i < max_pairs; i++)
        if (pairs[i].fd[0] < 0) {
          free_slot = i;
          break;
        }
    }
    for (int i = 0; i < max_pairs; i++) {
      struct relay_pair *p = &pairs[i];
      struct pollfd *pf = &fds[2 + 2 * i];
      if (p->fd[0] < 0 || pf[0].fd < 0) continue; /* new this round: polled next time */
      int broken = 0;
      for (int s = 0; s < 2 && !broken; s++) {
        struct relay_half *in = &p->dir[s];
        if ((pf[s].revents & (POLLIN | POLLHUP)) && !in->eof && in->len == 0) {
          ssize_t got = read(p->fd[s], in->buf, RELAY_BUF);
          if (got > 0) {
            in->len = (size_t)got;
            in->off = 0;
          } else if (got == 0) in->eof = 1;
          else if (errno != EAGAIN && errno != EINTR) broken = 1;
        } else if (pf[s].revents & POLLERR) broken = 1;
      }
      for (int s = 0; s < 2 && !broken; s++) {
        struct relay_half *out = &p->dir[s];
        int to = p->fd[1 - s];
        if (out->len > 0) {
          ssize_t put = write(to, out->buf + out->off, out->len);
          if (put > 0) {
            out->off += (size_t)put;
            out->len -= (size_t)put;
          } else if (put < 0 && errno != EAGAIN && errno != EINTR) broken = 1;
        }
        if (!broken && out->eof && out->len == 0 && !out->shut) {
          shutdown(to, SHUT_WR);
          out->shut = 1;
        }
      }
      if (broken || (p->dir[0].shut && p->dir[1].shut)) relay_close(p);
    }
  }
}

/* Listens first (the job may connect the moment it starts), then leaves a relay behind as bwrap's child. */
static void start_relay(const char *path, int http_port, int socks_port) {
  if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) usage("--relay socket path too long");
  int listeners[2] = {relay_listen(http_port), relay_listen(socks_port)};
  struct rlimit files;
  int max_pairs = RELAY_PAIRS;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY && (rlim_t)(2 * RELAY_PAIRS + 8) > files.rlim_cur)
    max_pairs = files.rlim_cur > 12 ? (int)((files.rlim_cur - 8) / 2) : 1;
  pid_t child = fork();
  if (child < 0) die("fork (relay)");
  if (child == 0) {
    if (fork() != 0) _exit(0); /* the relay is orphaned to bwrap's init, so the job never sees it as a child */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_NAME, "hs-egress-relay", 0, 0, 0);
    relay_loop(path, listeners, max_pairs);
    _exit(0);
  }
  int status;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  close(listeners[0]);
  close(listeners[1]);
}

static long parse_id(const char *text) {
  char *end;
  errno = 0;
  long id = strtol(text, &end, 10);
  /* 0 is refused: root always maps to itself, and mapping it elsewhere would hand the layer's root files to a job. */
  if (errno != 0 || *end != '\0' || end == text || id < 1 || id > 4294967294L) usage("--idmap-bind ids are 1..4294967294");
  return id;
}

static void write_map(pid_t pid, const char *which, long from, long to) {
  char path[64], text[96];
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, which);
  /* inside FROM = outside TO: an idmapped mount shows disk id FROM as TO. Root keeps its own id. */
  int len = from == to ? snprintf(text, sizeof text, "0 0 1\n") : snprintf(text, sizeof text, "0 0 1\n%ld %ld 1\n", from, to);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text, (size_t)len) != len) die(path);
  close(fd);
}

static int idmap_bind(const char *src, const char *dst, long from_uid, long to_uid, long from_gid, long to_gid) {
  int ready[2], hold[2];
  if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(hold, O_CLOEXEC) != 0) die("pipe2");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    /* The child only owns the user namespace: unshare, say so, wait until the parent has what it needs. */
    close(ready[0]);
    close(hold[1]); /* else the read below never sees EOF */
    char c = unshare(CLONE_NEWUSER) == 0 ? 'k' : 'e';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(hold[0], &c, 1) < 0) _exit(0);
    _exit(0);
  }
  close(ready[1]);
  close(hold[0]);
  char c = 0;
  if (read(ready[0], &c, 1) != 1 || c != 'k') {
    errno = EPERM;
    die("unshare(CLONE_NEWUSER)");
  }
  write_map(child, "uid_map", from_uid, to_uid);
  write_map(child, "gid_map", from_gid, to_gid);
  char nspath[64];
  snprintf(nspath, sizeof nspath, "/proc/%d/ns/user", (int)child);
  int userns = open(nspath, O_RDONLY | O_CLOEXEC);
  if (userns < 0) die(nspath);
  close(hold[1]);
  waitpid(child, NULL, 0);
  int tree = (int)syscall(__NR_open_tree, AT_FDCWD, src, HS_OPEN_TREE_CLONE | O_CLOEXEC);
  if (tree < 0) die("open_tree");
  struct hs_mount_attr attr = {.attr_set = HS_MOUNT_ATTR_IDMAP, .userns_fd = (uint64_t)userns};
  if (syscall(__NR_mount_setattr, tree, "", HS_AT_EMPTY_PATH, &attr, sizeof attr) != 0) die("mount_setattr(MOUNT_ATTR_IDMAP)");
  if (syscall(__NR_move_mount, tree, "", AT_FDCWD, dst, HS_MOVE_MOUNT_F_EMPTY_PATH) != 0) die("move_mount");
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "--launch") == 0) launch(argc - 3, &argv[3]);
  if (argc >= 2 && strcmp(argv[1], "--idmap-bind") == 0) {
    if (argc != 8) usage("--idmap-bind takes SRC DST FROM_UID TO_UID FROM_GID TO_GID");
    return idmap_bind(argv[2], argv[3], parse_id(argv[4]), parse_id(argv[5]), parse_id(argv[6]), parse_id(argv[7]));
  }

  if (argc == 2 && strcmp(argv[1], "--abi") == 0) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, HS_CREATE_RULESET_VERSION);
    if (abi < 0) printf("0 %s\n", errno == EOPNOTSUPP ? "Landlock is not enabled at boot (lsm=)" : errno == ENOSYS ? "the kernel has no Landlock" : strerror(errno));
    else printf("%ld\n", abi);
    return 0;
  }
  int i = 1;
  int first_limit = i;
  while (i < argc && strcmp(argv[i], "--rlimit") == 0) {
    if (i + 3 >= argc) usage("--rlimit takes NAME SOFT HARD");
    i += 4;
  }
  int end_limits = i;
  long umask_value = -1;
  if (i < argc && strcmp(argv[i], "--umask") == 0) {
    char *end;
    if (i + 1 >= argc) usage("--umask takes an octal mask");
    umask_value = strtol(argv[i + 1], &end, 8);
    if (*end != '\0' || end == argv[i + 1] || umask_value < 0 || umask_value > 0777) usage("--umask takes an octal mask");
    i += 2;
  }
  const char *relay_path = NULL;
  int relay_ports[2] = {0, 0};
  if (i < argc && strcmp(argv[i], "--relay") == 0) {
    if (i + 3 >= argc) usage("--relay takes SOCKET HTTP_PORT SOCKS_PORT");
    relay_path = argv[i + 1];
    for (int k = 0; k < 2; k++) {
      char *end;
      long port = strtol(argv[i + 2 + k], &end, 10);
      if (*end != '\0' || port < 1 || port > 65535) usage("--relay ports are 1-65535");
      relay_ports[k] = (int)port;
    }
    i += 4;
  }
  int landlock = 0;
  if (i < argc && strcmp(argv[i], "--landlock") == 0) {
    landlock = 1;
    i++;
  }
  int first_rule = i;
  while (i < argc && strcmp(argv[i], "--") != 0) {
    if (rights_of(argv[i]) == 0 || i + 1 >= argc) usage("rules are --rx|--rw|--dev|--read|--list PATH, then -- COMMAND");
    i += 2;
  }
  if (i >= argc - 1) usage("no command after --");
  char **command = &argv[i + 1];

  close_fds_from_3(NULL, 0);
  /* The job's own limits and umask, whatever the caller of headspace had (the command inherits them across exec). */
  for (int l = first_limit; l < end_limits; l += 4) set_limit(argv[l + 1], argv[l + 2], argv[l + 3]);
  if (umask_value >= 0) umask((mode_t)umask_value);
  /* bwrap sets it already (it loads our seccomp filter); Landlock requires it, so never depend on that. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(PR_SET_NO_NEW_PRIVS)");
  if (landlock) apply_landlock(&argv[first_rule], i - first_rule);
  /* After Landlock: the relay runs under the job's own ruleset, seccomp filter and limits. */
  if (relay_path != NULL) start_relay(relay_path, relay_ports[0], relay_ports[1]);

  execvp(command[0], command);
  int code = errno == ENOENT || errno == ENOTDIR ? 127 : 126;
  fprintf(stderr, "headspace: %s: %s\n", command[0], code == 127 ? "not found" : strerror(errno));
  return code;
}
