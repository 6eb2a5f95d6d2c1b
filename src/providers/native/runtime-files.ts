/**
 * Generated /etc/passwd, /etc/group and /etc/hosts for the sandbox. The
 * host's own would list host users and host names; tools only need the job
 * user to resolve (git, python's getpass) and localhost to resolve.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RuntimeFiles {
  passwd: string;
  group: string;
  hosts: string;
}

export function runtimeFileContents(user: { uid: number; gid: number }): Record<keyof RuntimeFiles, string> {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:${user.uid}:${user.gid}:headspace job:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nagent:x:${user.gid}:\nnogroup:x:65534:\n`,
    hosts: '127.0.0.1\tlocalhost headspace\n::1\tlocalhost ip6-localhost ip6-loopback\n',
  };
}

/** Writes the files if missing or different (atomic rename: a concurrent run never sees half a file). */
export async function ensureRuntimeFiles(dir: string, user: { uid: number; gid: number }): Promise<RuntimeFiles> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const contents = runtimeFileContents(user);
  const paths = { passwd: join(dir, 'passwd'), group: join(dir, 'group'), hosts: join(dir, 'hosts') };
  for (const key of ['passwd', 'group', 'hosts'] as const) {
    const current = await readFile(paths[key], 'utf8').catch(() => undefined);
    if (current === contents[key]) continue;
    const tmp = `${paths[key]}.${process.pid}.tmp`;
    await writeFile(tmp, contents[key], { mode: 0o644 });
    await rename(tmp, paths[key]);
  }
  return paths;
}
