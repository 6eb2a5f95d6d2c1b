/**
 * Where a job's egress socket lives on the host (#18 F3), so that only that
 * job's uid can reach it. The red team found it at /tmp/hs-egress-XXXX (0711,
 * its name listable) with the socket 0666: any local user could use a
 * running job's allow-list, or crash its proxy.
 *
 *   parent  as root: /run/headspace-egress (root's, 0711: passable, not
 *           listable), outside HEADSPACE_HOME because bwrap runs as the job
 *           uid and binds the socket with that uid's rights, and a home such
 *           as /root/.headspace is not searchable by it. Not as root: the job
 *           runs as ourselves, so HEADSPACE_HOME/egress (0700) serves.
 *   dir     `<home tag>+<pid>+<workspace id>+XXXXXX`, 0700 and, as root,
 *           owned by the job's uid and gid: no other uid (root aside) passes it.
 *   socket  `<dir>/egress.sock`, 0600, owned like the dir.
 *
 * The dir goes with the proxy's close; one left by a process that died is
 * listed by the native provider's leftovers (doctor) by its home tag and pid.
 * Older versions (and a proxy started without a dir: tests, bench) made
 * `/tmp/hs-egress-XXXXXX` instead, whose name carries no pid: one of those is
 * stale only when nothing listens on its socket (staleTmpEgressDirs).
 */
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobUser } from '../job-identity.js';

export const EGRESS_RUN_DIR = '/run/headspace-egress';

const asRoot = () => process.getuid?.() === 0;

/** The parent of this home's egress directories. */
export function egressParent(home: string): string {
  return asRoot() ? EGRESS_RUN_DIR : join(home, 'egress');
}

function homeTag(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 10);
}

/** Makes one job's private directory; `owner` (as root) is the job's uid and gid. */
export function makeEgressDir(home: string, workspaceId: string, owner?: JobUser): string {
  const parent = egressParent(home);
  mkdirSync(parent, { recursive: true, mode: asRoot() ? 0o711 : 0o700 });
  // mkdir -p keeps an existing directory's mode: set it, so a parent made by an older version is not listable.
  chmodSync(parent, asRoot() ? 0o711 : 0o700);
  const dir = mkdtempSync(join(parent, `${homeTag(home)}+${process.pid}+${workspaceId}+`));
  chmodSync(dir, 0o700);
  if (owner !== undefined && asRoot()) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

/** This home's egress directories whose process is gone: what a crash left. */
export function staleEgressDirs(home: string, alive: (pid: number) => boolean): Array<{ path: string; workspaceId: string; pid: number }> {
  const parent = egressParent(home);
  const tag = homeTag(home);
  const out = [];
  for (const name of readdirSafe(parent).sort()) {
    const [t, pid, workspaceId, rand] = name.split('+');
    if (t !== tag || rand === undefined || workspaceId === undefined || !/^\d+$/.test(pid ?? '')) continue;
    if (!alive(Number(pid))) out.push({ path: join(parent, name), workspaceId, pid: Number(pid) });
  }
  return out;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** What an older version's egress directory in the temporary directory is called (mkdtemp of `hs-egress-`). */
const TMP_EGRESS_NAME = /^hs-egress-[A-Za-z0-9]{6}$/;
/** A directory younger than this may be one whose proxy has not bound its socket yet (mkdtemp, then listen). */
export const TMP_EGRESS_GRACE_MS = 60_000;

/**
 * `/tmp/hs-egress-XXXXXX` directories a crashed proxy left (older versions put every job's socket there; the
 * red team found them piling up). Their name names no process, so the owner is found through the socket:
 * a directory is stale only when it is ours (our uid, a real directory, not a link), holds nothing but
 * `egress.sock`, is older than the grace, no socket in this network namespace is bound at its path
 * (/proc/net/unix; unreadable → nothing is stale) and a connect to it is refused. A proxy in another network
 * namespace is invisible in /proc/net/unix, hence the connect: a live one answers it, and the
 * directory is kept. Fail closed: any doubt keeps the directory.
 */
export async function staleTmpEgressDirs(parent = tmpdir(), now = Date.now()): Promise<string[]> {
  let bound: Set<string>;
  try {
    bound = new Set(
      readFileSync('/proc/net/unix', 'utf8')
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/)[7])
        .filter((p): p is string => p !== undefined && p.startsWith('/')),
    );
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const out = [];
  for (const name of readdirSafe(parent).sort()) {
    if (!TMP_EGRESS_NAME.test(name)) continue;
    const dir = join(parent, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || now - st.mtimeMs < TMP_EGRESS_GRACE_MS) continue;
      if (readdirSync(dir).some((entry) => entry !== 'egress.sock')) continue;
    } catch {
      continue;
    }
    const socket = join(dir, 'egress.sock');
    if (bound.has(socket) || (await answers(socket))) continue;
    out.push(dir);
  }
  return out;
}

/** True unless a connect to a unix socket path is refused or finds nothing (ECONNREFUSED, ENOENT): in doubt, in use. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (inUse: boolean) => {
      socket.destroy();
      resolve(inUse);
    };
    socket.setTimeout(2000, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}
