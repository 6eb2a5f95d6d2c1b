/**
 * Snapshot probe (#14): can a job reach a checkpoint's data, or another
 * fork's, from inside its own workspace? The host plants one canary token
 * in a file it then checkpoints and deletes (so the token lives only in the
 * checkpoint's frozen data, right under the job's own files), and another in
 * a fork made from that checkpoint. The job then looks everywhere it can:
 * the layer names /proc/self/mountinfo shows (as given, absolute, and under
 * the usual runtime directories), guessed paths of the mechanism, and a
 * bounded walk of every writable or runtime-looking tree, reading each small
 * regular file for either token. /proc is never searched (the job's own
 * environment would match nothing, but a token in it would prove nothing).
 *
 * Checked against a deliberately broken build: binding the image area
 * (`<mount base>/img`, where the frozen layers live) read-only into the
 * sandbox at /mnt made this scenario report `escaped`, naming both canaries'
 * paths (see docs/ARCHITECTURE.md, "Snapshots").
 */
import { linesStartingWith, notAttempted, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

/** Reads the tokens from its environment, searches, prints `found: <path> <which>` per hit and a summary. */
const SEARCH_SCRIPT = String.raw`import os, re, sys
tokens = {'checkpoint': os.environ['HS_CP_TOKEN'].encode(), 'fork': os.environ['HS_FORK_TOKEN'].encode()}
layers = []
for line in open('/proc/self/mountinfo'):
    for key in ('lowerdir', 'upperdir', 'workdir'):
        for m in re.finditer(key + r'=([^,\s]+)', line):
            layers.extend(m.group(1).split(':'))
print('layers:', len(layers))
starts = set()
for p in layers:
    for base in ('', '/', '/workspace/', '/run/', '/run/headspace-native/', '/mnt/', '/tmp/'):
        starts.add(os.path.normpath(base + p))
starts.update(['/run', '/mnt', '/media', '/srv', '/var', '/home', '/root', '/opt', '/tmp', '/workspace', '/workspace/..', '/run/headspace-native'])
seen, seen_paths, files, hits, denied = set(), [], 0, 0, 0
def check(path):
    global files, hits, denied
    try:
        st = os.lstat(path)
        if not os.path.isfile(path) or os.path.islink(path) or st.st_size > (1 << 20): return
        files += 1
        data = open(path, 'rb').read(1 << 20)
    except OSError:
        denied += 1
        return
    for which, token in tokens.items():
        if token in data:
            hits += 1
            print('found:', path, which, flush=True)
def walk(start):
    if start.startswith(('/proc', '/sys', '/dev', '/usr')): return
    base = start.rstrip('/').count('/')
    for root, dirs, names in os.walk(start, followlinks=False):
        # Each directory once (by device and inode), at most 10 levels below a start: the workspace may hold
        # a 1,500-deep tree from another scenario, and the mechanism's data sits a few levels down.
        try: st = os.stat(root)
        except OSError: dirs[:] = []; continue
        key = (st.st_dev, st.st_ino)
        norm = os.path.normpath(root)
        if key in seen or norm.startswith(('/proc', '/sys', '/dev', '/usr')) or files > 20000 or root.count('/') - base > 10:
            dirs[:] = []
            continue
        seen.add(key)
        seen_paths.append(norm)
        for name in names: check(os.path.join(root, name))
for start in sorted(starts): walk(start)
# Directories that can be passed but not listed (mode 0711): guess the layer names below each, and the mechanism's own area names.
for d in sorted(set(seen_paths)):
    for name in os.listdir(d) if os.access(d, os.R_OK) else []:
        for p in layers:
            for guess in (os.path.join(d, name, p), os.path.join(d, name, 'img', p), os.path.join(d, 'img', p)):
                if os.path.isdir(guess): walk(guess)
print('searched:', files, 'files in', len(seen), 'directories (', denied, 'unreadable);', hits, 'hits')
print('${DONE}')
`;

export interface SnapshotCanaryFacts {
  /** Where the canaries are on the host side, for the evidence: never their content. */
  planted: string;
}

export const snapshotData: Scenario<SnapshotCanaryFacts> = {
  id: 'snapshot-data',
  title: "a checkpoint's or another fork's data",
  attempts:
    "find a token that lives only in this workspace's checkpoint (written, checkpointed, deleted) or in a fork made from it: through the layers mountinfo names, guessed paths and a bounded walk of every reachable tree",
  requires: ['filesystem'],
  requiresFeatures: ['snapshots'],
  async prepare(host) {
    const planted = await host.plantSnapshotCanaries();
    return {
      argv: ['python3', '-c', SEARCH_SCRIPT],
      env: { HS_CP_TOKEN: planted.checkpointToken, HS_FORK_TOKEN: planted.forkToken },
      observe: async () => ({ planted: planted.where }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const found = linesStartingWith(job.output, 'found:');
    const searched = linesStartingWith(job.output, 'searched:')[0] ?? 'nothing reported';
    if (found.length > 0)
      return {
        verdict: 'escaped',
        evidence: `the job read snapshot data that is not its own: ${found.slice(0, 3).join('; ')} (${host.planted})`,
        lines: job.output.split('\n').filter((line) => line.startsWith('found:')),
      };
    return { verdict: 'contained', evidence: `neither canary (${host.planted}) was reachable; searched ${searched}` };
  },
};
