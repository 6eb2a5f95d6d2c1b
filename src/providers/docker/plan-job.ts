/**
 * A job is one exec in the workspace's container. Pure planning of the two
 * scripts that make exec behave like a native job (tested on their output
 * and run for real by the conformance suite):
 *
 *  - JOB_WRAPPER runs the job's argv as its child (never through a shell's
 *    parsing: `"$@"`), records its own pid (= the exec's session id: the
 *    engine starts every exec as a session leader) where a stop from another
 *    process finds it, and when the job exits ends whatever it left behind —
 *    a background child holding stdout open would otherwise keep the exec's
 *    stream, and so the job, alive. With one job at once that is every
 *    process outside the container's own session (so a `setsid` escapee goes
 *    too); with several, the job's session and descendants only.
 *  - STOP_SCRIPT ends the named jobs (or all): TERM to every process of
 *    their sessions and descendants, a grace, KILL to what remains, and
 *    reports whether anything is left.
 *
 * Both need only `/bin/sh` with its `kill` builtin and /proc, so a user's own
 * image works if it has a POSIX shell (the probe checks it).
 */
import { WORKSPACE_DIR } from './plan-container.js';

/** Inside the container's /tmp tmpfs: gone with the container, and per job one small file. */
export const JOB_PID_DIR = '/tmp/.headspace-jobs';

/** Prints the pids to act on: members of sessions in $SESSIONS (or all but session 1 when ALL=1) and their descendants. */
const SCAN = `
scan() {
  found=""
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    [ "$p" = "$$" ] && continue
    [ "$p" = 1 ] && continue
    st=""
    read -r st < "$d/stat" 2>/dev/null || continue
    set -- \${st##*) }
    # A zombie is already dead: it waits only for its parent (or docker-init) to reap it.
    [ "$1" = Z ] && continue
    sid=$4
    [ "$sid" = "$self_sid" ] && continue
    if [ "$ALL" = 1 ]; then
      [ "$sid" != 1 ] && found="$found $p"
    else
      for s in $SESSIONS; do [ "$sid" = "$s" ] && found="$found $p"; done
    fi
  done
  echo "$found"
}
`;

/** $1 job id, $2 `all` or `session`, then the job's argv. */
export const JOB_WRAPPER = `mkdir -p ${JOB_PID_DIR} 2>/dev/null
echo $$ > ${JOB_PID_DIR}/"$1" 2>/dev/null
job=$1; sweep=$2; shift 2
"$@"
status=$?
rm -f ${JOB_PID_DIR}/"$job"
self_sid=$$
ALL=0; SESSIONS=$$
[ "$sweep" = all ] && ALL=1
${SCAN}
left=$(scan)
[ -n "$left" ] && kill -9 $left 2>/dev/null
exit $status
`;

/** $1 grace in ms, $2 `all` or `jobs`, then job ids. Prints `none` (nothing found), `empty` or `left <pids>`. */
export const STOP_SCRIPT = `grace=$1; mode=$2; shift 2
self_sid=$$
ALL=0; SESSIONS=""
if [ "$mode" = all ]; then ALL=1; else
  for j in "$@"; do
    pid=$(cat ${JOB_PID_DIR}/"$j" 2>/dev/null)
    [ -n "$pid" ] && SESSIONS="$SESSIONS $pid"
  done
fi
${SCAN}
targets=$(scan)
# Nothing to end (a job whose exec has not recorded its session yet, or an idle container): say so.
if [ -z "$targets" ]; then echo none; exit 0; fi
if [ -n "$targets" ]; then
  kill -TERM $targets 2>/dev/null
  waited=0
  while [ "$waited" -lt "$grace" ] && [ -n "$(scan)" ]; do sleep 0.05; waited=$((waited + 50)); done
  left=$(scan)
  [ -n "$left" ] && kill -9 $left 2>/dev/null
fi
tries=0
while [ -n "$(scan)" ] && [ "$tries" -lt 100 ]; do sleep 0.05; tries=$((tries + 1)); done
for j in "$@"; do rm -f ${JOB_PID_DIR}/"$j"; done
left=$(scan)
if [ -n "$left" ]; then echo "left$left"; else echo empty; fi
`;

export interface JobExecPlan {
  cmd: string[];
  env: string[];
  workingDir: string;
}

/** The exec for one job: the wrapper, its job id and sweep, then the argv untouched. */
export function planJobExec(input: { jobId: string; argv: string[]; env: Record<string, string>; cwd: string; concurrency: number }): JobExecPlan {
  const env = Object.entries(input.env).map(([name, value]) => `${name}=${value}`);
  return {
    cmd: ['/bin/sh', '-c', JOB_WRAPPER, 'headspace-job', input.jobId, input.concurrency > 1 ? 'session' : 'all', ...input.argv],
    env,
    workingDir: input.cwd === '' ? WORKSPACE_DIR : `${WORKSPACE_DIR}/${input.cwd}`,
  };
}

/** The control exec that ends jobs: `jobIds` undefined ends every process outside the container's own session. */
export function planStopExec(jobIds: string[] | undefined, graceMs: number): string[] {
  return ['/bin/sh', '-c', STOP_SCRIPT, 'headspace-stop', String(Math.max(0, Math.round(graceMs))), jobIds === undefined ? 'all' : 'jobs', ...(jobIds ?? [])];
}
