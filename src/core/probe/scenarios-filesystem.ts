/**
 * Filesystem probes: writing outside the workspace, reading a host canary,
 * a planted symlink read back host-side, and filling /tmp.
 */
import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatBytes } from '../policy/effective-policy.js';
import { makeHostDir, plantCanaryFile, removePath } from './host-fixtures.js';
import { linesStartingWith, notAttempted, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

const WRITE_SCRIPT = `import sys
tok = sys.argv[1]
for p in sys.argv[2:]:
    try:
        with open(p, 'x') as f: f.write(tok)
        print('wrote:', p)
    except OSError as e:
        print('refused:', p, e.strerror)
print('${DONE}')`;

export interface WriteFacts {
  /** Host paths where a file of the attempt now exists. */
  landed: string[];
  checked: number;
}

export const writeOutside: Scenario<WriteFacts> = {
  id: 'write-outside',
  title: 'write outside the workspace',
  attempts: 'create files in a world-writable host directory, HEADSPACE_HOME, /etc, /usr, /, /tmp and through /workspace/..',
  requires: ['filesystem'],
  async prepare(host) {
    const name = `hsprobe-${host.token().slice(0, 12)}`;
    const dir = await makeHostDir('write', 0o777);
    host.defer(() => removePath(dir));
    const hostPaths = [join(dir, name), join(host.home, name), `/etc/${name}`, `/usr/${name}`, `/${name}`, join(tmpdir(), name), `/tmp/${name}`];
    for (const path of hostPaths) host.defer(() => removePath(path));
    const inside = [
      join(dir, name),
      join(host.home, name),
      `/etc/${name}`,
      `/usr/${name}`,
      `/${name}`,
      `/tmp/${name}`,
      `/workspace/../${name}`,
      `/proc/self/root/etc/${name}`,
    ];
    return {
      argv: ['python3', '-c', WRITE_SCRIPT, name, ...inside],
      observe: async () => ({ landed: [...new Set(hostPaths)].filter((p) => existsSync(p)), checked: new Set(hostPaths).size }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (host.landed.length > 0) return { verdict: 'escaped', evidence: `a file written inside appeared on the host at ${host.landed.join(', ')}` };
    const refused = linesStartingWith(job.output, 'refused:').length;
    const wrote = linesStartingWith(job.output, 'wrote:').length;
    return {
      verdict: 'contained',
      evidence: `${refused} writes refused inside; ${wrote} landed only in the sandbox's private /tmp; none of ${host.checked} host paths exists`,
    };
  },
};

const READ_SCRIPT = `import sys
for p in sys.argv[1:]:
    try:
        with open(p) as f: print('read:', p, f.read(200).strip())
    except OSError as e:
        print('refused:', p, e.strerror)
print('${DONE}')`;

export interface ReadFacts {
  /** The canaries' random contents (never shown inside except by a leak). */
  contents: string[];
}

export const readHostFile: Scenario<ReadFacts> = {
  id: 'read-host-file',
  title: 'read a host canary file',
  attempts: 'read world-readable canary files planted in the host temp dir and in HEADSPACE_HOME, directly and through /proc/*/root and /workspace/..',
  requires: ['filesystem'],
  async prepare(host) {
    const dir = await makeHostDir('read', 0o755);
    host.defer(() => removePath(dir));
    const open = await plantCanaryFile(dir);
    const nearState = await plantCanaryFile(host.home);
    host.defer(() => removePath(nearState.path));
    const paths = [open.path, nearState.path].flatMap((p) => [p, `/proc/1/root${p}`, `/proc/self/root${p}`, `/workspace/../..${p}`]);
    return {
      argv: ['python3', '-c', READ_SCRIPT, ...paths],
      observe: async () => ({ contents: [open.content, nearState.content] }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const leak = linesStartingWith(job.output, 'read:').find((line) => host.contents.some((c) => line.includes(c)));
    if (leak !== undefined) return { verdict: 'escaped', evidence: `a host canary's content was read inside via ${leak.split(' ')[0]}` };
    if (host.contents.some((c) => job.output.includes(c))) return { verdict: 'escaped', evidence: "a host canary's content appears in the job's output" };
    return {
      verdict: 'contained',
      evidence: `${linesStartingWith(job.output, 'refused:').length} reads of ${host.contents.length} host canaries refused; no canary content inside`,
    };
  },
};

export interface SymlinkFacts {
  reads: Array<{ path: string; outcome: string; leaked: boolean }>;
}

/** Links the job plants; each is then read host-side through the provider. */
const LINKS: ReadonlyArray<readonly [string, string]> = [
  ['leak', '/etc/shadow'],
  ['rel', '../../../../../../../../etc/shadow'],
  ['procroot', '/proc/1/root/etc/shadow'],
  ['etcdir', '/etc'],
];
const READ_BACK = ['leak', 'rel', 'procroot', 'etcdir/shadow', 'etcdir/passwd'];

export const symlinkRead: Scenario<SymlinkFacts> = {
  id: 'symlink-read',
  title: "a planted symlink read back through the provider's read",
  attempts: 'plant `ln -s /etc/shadow leak` (and relative, /proc and directory variants); the host then reads them back with provider.read',
  requires: ['filesystem'],
  async prepare(host) {
    const script = `${LINKS.map(([name, target]) => `ln -sfn ${target} ${name}`).join(' && ')} && echo ${DONE}`;
    return {
      argv: ['sh', '-c', script],
      observe: async () => {
        const reads: SymlinkFacts['reads'] = [];
        for (const path of READ_BACK) {
          const got = await host.readWorkspaceFile(path);
          reads.push('refused' in got ? { path, outcome: got.refused, leaked: false } : { path, outcome: `${got.bytes} bytes returned`, leaked: true });
        }
        return { reads };
      },
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const leaked = host.reads.filter((r) => r.leaked);
    if (leaked.length > 0)
      return { verdict: 'escaped', evidence: `the host-side read followed a planted link: ${leaked.map((r) => `${r.path} (${r.outcome})`).join(', ')}` };
    const codes = [...new Set(host.reads.map((r) => r.outcome))].join(', ');
    return { verdict: 'contained', evidence: `${host.reads.length} host-side reads through planted links refused (${codes})` };
  },
};

const FILL_SCRIPT = `import sys, errno
path, limit, n = sys.argv[1], int(sys.argv[2]), 0
try:
    with open(path, 'wb', buffering=0) as f:
        while n < limit:
            f.write(b'\\0' * (1 << 20)); n += 1 << 20
    print('nospace: none after', n)
except OSError as e:
    print('nospace:', errno.errorcode.get(e.errno, e.errno), 'after', n)
print('${DONE}')`;

export interface FillFacts {
  /** The cap the job must hit: the workspace's storage budget bounds its /tmp. */
  capBytes: number;
  /** The job's /tmp file also exists in the host's /tmp. */
  onHost: boolean;
  /** Free bytes of the host's temp filesystem before and after (evidence only: other work shares it). */
  hostFreeBefore: number | null;
  hostFreeAfter: number | null;
}

export const fillTmp: Scenario<FillFacts> = {
  id: 'fill-tmp',
  title: 'fill /tmp',
  attempts: 'write /tmp full, up to four times the storage budget, and expect ENOSPC at the cap',
  requires: ['filesystem'],
  async prepare(host) {
    const name = `hsprobe-fill-${host.token().slice(0, 12)}`;
    const hostPaths = [join(tmpdir(), name), `/tmp/${name}`];
    for (const path of hostPaths) host.defer(() => removePath(path));
    const freeBytes = () =>
      statfs(tmpdir()).then(
        (s) => s.bavail * s.bsize,
        () => null,
      );
    const hostFreeBefore = await freeBytes();
    const capBytes = host.budget.storageBytes;
    return {
      argv: ['python3', '-c', FILL_SCRIPT, `/tmp/${name}`, String(capBytes * 4)],
      observe: async () => ({ capBytes, onHost: hostPaths.some((p) => existsSync(p)), hostFreeBefore, hostFreeAfter: await freeBytes() }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (host.onHost) return { verdict: 'escaped', evidence: "the job's /tmp file appeared in the host's /tmp" };
    const line = linesStartingWith(job.output, 'nospace:')[0] ?? '';
    const [code, , after] = line.split(' ');
    const written = Number(after);
    if (code !== 'ENOSPC') return { verdict: 'escaped', evidence: `no ENOSPC: ${line || 'the job reported nothing'} (cap ${formatBytes(host.capBytes)})` };
    if (!(written <= host.capBytes))
      return { verdict: 'escaped', evidence: `ENOSPC only after ${formatBytes(written)}, past the ${formatBytes(host.capBytes)} cap` };
    if (job.status !== 'success') return { verdict: 'escaped', evidence: `ENOSPC was hit but the job ended ${job.status}, not success` };
    const delta =
      host.hostFreeBefore !== null && host.hostFreeAfter !== null
        ? `; host temp free space moved ${formatBytes(Math.abs(host.hostFreeBefore - host.hostFreeAfter))}`
        : '';
    return {
      verdict: 'contained',
      evidence: `ENOSPC after ${formatBytes(written)} (cap ${formatBytes(host.capBytes)}); the job ended success; nothing in the host's /tmp${delta}`,
    };
  },
};
