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
 */
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
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
