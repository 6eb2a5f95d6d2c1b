/**
 * Generated /etc/passwd, /etc/group and /etc/hosts for the sandbox. The
 * host's own would list host users and host names; tools only need the job
 * user to resolve (git, python's getpass) and localhost to resolve.
 *
 * One set per workspace (`<runtime>/<workspace id>/`), since each workspace's
 * jobs run as a uid of their own (#10 item 4). The files are root-owned,
 * world-readable and read-only: they name only the job uid and gid, and a
 * job sees them through a read-only bind. They go with the workspace.
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Exposure } from './plan-bwrap.js';

export interface RuntimeFiles {
  passwd: string;
  group: string;
  hosts: string;
}

const NAMES = ['passwd', 'group', 'hosts'] as const;

export function runtimeFileContents(user: { uid: number; gid: number }): Record<keyof RuntimeFiles, string> {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:${user.uid}:${user.gid}:headspace job:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nagent:x:${user.gid}:\nnogroup:x:65534:\n`,
    hosts: '127.0.0.1\tlocalhost headspace\n::1\tlocalhost ip6-localhost ip6-loopback\n',
  };
}

function pathsIn(dir: string): RuntimeFiles {
  return { passwd: join(dir, 'passwd'), group: join(dir, 'group'), hosts: join(dir, 'hosts') };
}

/**
 * Writes the files into `dir` if missing or different (atomic rename: a
 * concurrent run never sees half a file); `makeDir` makes `dir`. With
 * `trustExisting` (the per-job path), files that exist are taken as they
 * are: three stats instead of three reads; they are rewritten only when a
 * reboot or a pruned mount base took them away.
 */
export async function ensureRuntimeFiles(
  dir: string,
  user: { uid: number; gid: number },
  options: { makeDir: () => Promise<unknown>; trustExisting?: boolean },
): Promise<RuntimeFiles> {
  const paths = pathsIn(dir);
  if (options.trustExisting === true && NAMES.every((key) => existsSync(paths[key]))) return paths;
  await options.makeDir();
  const contents = runtimeFileContents(user);
  for (const key of NAMES) {
    const current = await readFile(paths[key], 'utf8').catch(() => undefined);
    if (current === contents[key]) continue;
    const tmp = `${paths[key]}.${process.pid}.tmp`;
    await writeFile(tmp, contents[key], { mode: 0o644 });
    await rename(tmp, paths[key]);
  }
  return paths;
}

export async function removeRuntimeFiles(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The read-only binds over the host's files; the profile digest names them by role (`generated /etc/passwd`). */
export function runtimeExposures(files: RuntimeFiles): Exposure[] {
  return [
    { kind: 'ro-bind', src: files.passwd, dest: '/etc/passwd' },
    { kind: 'ro-bind', src: files.group, dest: '/etc/group' },
    { kind: 'ro-bind', src: files.hosts, dest: '/etc/hosts' },
  ];
}

export const GENERATED_DESTINATIONS = ['/etc/passwd', '/etc/group', '/etc/hosts'] as const;
