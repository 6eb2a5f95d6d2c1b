/**
 * Generated /etc/passwd, /etc/group and /etc/hosts for the sandbox. The
 * host's own would list host users and host names; tools only need the job
 * user to resolve (git, python's getpass) and localhost to resolve.
 *
 * They exist only inside the sandbox: node writes each one to a descriptor
 * of the launcher (launcher-fds.ts) and bwrap writes it, read-only, into the
 * sandbox's root (`--file`). They used to be host files under the mount base
 * bound over /etc, and a bind's root in the job's /proc/self/mountinfo then
 * named `/run/headspace-native/<tag>/runtime/<workspace id>/passwd` (red
 * team 2, item 3). Per job this costs three socket pairs at the launcher's
 * spawn and three small writes inside bwrap, in place of three bind mounts
 * and three stats of the host files.
 *
 * The workspace's runtime directory (reachable-paths.ts) still holds its copy
 * of the exec shim, which the launcher runs as the job uid.
 */
import { rm } from 'node:fs/promises';
import { GENERATED_FILE_FDS } from './launcher-fds.js';
import type { Exposure } from './plan-bwrap.js';

/** Sandbox destinations, in the order of GENERATED_FILE_FDS. */
export const GENERATED_DESTINATIONS = ['/etc/passwd', '/etc/group', '/etc/hosts'] as const;

export function runtimeFileContents(user: { uid: number; gid: number }): { passwd: string; group: string; hosts: string } {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:${user.uid}:${user.gid}:headspace job:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nagent:x:${user.gid}:\nnogroup:x:65534:\n`,
    hosts: '127.0.0.1\tlocalhost headspace\n::1\tlocalhost ip6-localhost ip6-loopback\n',
  };
}

/** What node writes to the launcher's descriptors 6, 7, 8, in that order. */
export function generatedFileData(user: { uid: number; gid: number }): Buffer[] {
  const contents = runtimeFileContents(user);
  return [contents.passwd, contents.group, contents.hosts].map((text) => Buffer.from(text));
}

/** The generated files as exposures (bwrap `--file`; Landlock read rules); the profile digest names them by role (`generated /etc/passwd`). */
export function runtimeExposures(): Exposure[] {
  return GENERATED_DESTINATIONS.map((dest, i) => ({ kind: 'data', fd: GENERATED_FILE_FDS[i]!, dest }));
}

export async function removeRuntimeFiles(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
