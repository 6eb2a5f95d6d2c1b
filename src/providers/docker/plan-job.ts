/**
 * A job is one exec in the workspace's container. Pure planning of the two
 * scripts that make exec behave like a native job (tested on their output
 * and run for real by the conformance suite):
 *
 *  - JOB_WRAPPER runs the job's argv as its child (never through a shell's
 *    parsing: `"$@"`) and, when the job exits, ends whatever it left behind —
 *    a background child holding stdout open would otherwise keep the exec's
 *    stream, and so the job, alive.
 *  - STOP_SCRIPT ends the job: TERM, a grace, KILL, and reports whether
 *    anything is left.
 *
 * Both end processes the same way, trusting nothing a job can write (#19: a
 * job once rewrote the session file a stop read and had another job killed):
 * docker runs one job at a time per workspace, the job user is the
 * workspace's own uid, and the container's init runs as another
 * (plan-container.ts), so "every process of the job" is "every process of
 * that uid" — ended by `kill -1` run as that uid. The kernel signals every
 * process the caller may signal (never pid 1 nor the caller itself) in one
 * walk of the task list under its lock, and a fork racing it either is in the
 * list or fails on the parent's pending SIGKILL: a chain that re-forks
 * through `setsid` cannot slip between a scan and a kill as it did when the
 * sweep read /proc and then killed what it had read. /proc is read only to
 * confirm nothing of the uid is left (bounded retries).
 *
 * Both need only `/bin/sh` with its `kill` builtin and /proc, so a user's own
 * image works if it has a POSIX shell (the probe checks it).
 */
import { WORKSPACE_DIR } from './plan-container.js';

/**
 * Sets $found to the live (not zombie) processes whose real uid is $me, other
 * than this shell and pid 1. No command substitution: a subshell would be a
 * process of $me itself.
 */
const MINE = `
mine() {
  found=""
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    [ "$p" = "$$" ] && continue
    [ "$p" = 1 ] && continue
    s=""; u=""
    while read -r k v rest; do
      case "$k" in State:) s=$v ;; Uid:) u=$v; break ;; esac
    done < "$d/status" 2>/dev/null
    [ "$s" = Z ] && continue
    [ "$u" = "$me" ] && found="$found $p"
  done
}
# KILL to every process of $me but this shell, until /proc shows none (at most $1 rounds).
finish() {
  rounds=0
  while :; do
    kill -9 -1 2>/dev/null
    mine
    [ -z "$found" ] && return 0
    rounds=$((rounds + 1))
    [ "$rounds" -ge "$1" ] && return 1
    sleep 0.02
  done
}
`;

/** $1 the job uid, then the job's argv. Runs as the job uid. */
export const JOB_WRAPPER = `me=$1; shift
# A stop's TERM reaches this shell too (kill -1): it outlives it to report the job's own end, a TERM handler's exit
# code as native records it, where dying of it recorded SIGTERM. A handler, not an ignore: the job starts with TERM at
# its default (an ignored signal stays ignored across exec). The KILL after the grace ends this shell as ever.
trap : TERM
"$@"
status=$?
${MINE}
finish 250
exit $status
`;

/** $1 grace in ms, $2 the job uid. Runs as the job uid. Prints `none` (nothing ran), `empty` or `left <pids>`. */
export const STOP_SCRIPT = `grace=$1; me=$2
${MINE}
mine
# Nothing to end (a job whose exec has not started yet, or an idle container): say so.
if [ -z "$found" ]; then echo none; exit 0; fi
# The grace is wall time: $now in centiseconds since boot, read from /proc/uptime by the shell itself (no
# process of $me). Counting the loop's sleeps left out each scan of /proc, which is slow with many processes
# or under load: a 1 s grace once lasted several. Where /proc/uptime cannot be read, the sleeps are counted.
clock=count; now=0
read -r up rest 2>/dev/null < /proc/uptime && case "$up" in *[!0-9.]*) ;; [0-9]*.[0-9][0-9]) clock=uptime ;; esac
tick() {
  if [ "$clock" = uptime ] && read -r up rest 2>/dev/null < /proc/uptime; then
    now=$(( \${up%.*} * 100 + 1\${up#*.} - 100 ))
  else
    now=$((now + 5))
  fi
}
kill -15 -1 2>/dev/null
tick
deadline=$((now + (grace + 9) / 10))
while :; do
  mine
  [ -z "$found" ] && break
  tick
  [ "$now" -ge "$deadline" ] && break
  sleep 0.05
done
finish 250
if [ -n "$found" ]; then echo "left$found"; else echo empty; fi
`;

export interface JobExecPlan {
  cmd: string[];
  env: string[];
  workingDir: string;
  /** `uid:gid`: every job exec names the job user (the container's own user is another, plan-container.ts). */
  user: string;
}

/** The exec for one job: the wrapper, the job uid, then the argv untouched. */
export function planJobExec(input: { argv: string[]; env: Record<string, string>; cwd: string; user: { uid: number; gid: number } }): JobExecPlan {
  const env = Object.entries(input.env).map(([name, value]) => `${name}=${value}`);
  return {
    cmd: ['/bin/sh', '-c', JOB_WRAPPER, 'headspace-job', String(input.user.uid), ...input.argv],
    env,
    workingDir: input.cwd === '' ? WORKSPACE_DIR : `${WORKSPACE_DIR}/${input.cwd}`,
    user: `${input.user.uid}:${input.user.gid}`,
  };
}

/** The control exec that ends the workspace's job: run as the job user (`user`), it ends every process of that uid. */
export function planStopExec(user: { uid: number; gid: number }, graceMs: number): { cmd: string[]; user: string } {
  return {
    cmd: ['/bin/sh', '-c', STOP_SCRIPT, 'headspace-stop', String(Math.max(0, Math.round(graceMs))), String(user.uid)],
    user: `${user.uid}:${user.gid}`,
  };
}
