/**
 * The `host` runtime profile: the host's own /usr (and its merged-usr links),
 * the few /etc files tools need, and toolchains found on the host PATH
 * (python3, node, git, cc), all read-only.
 *
 * `environmentDigest` = sha256 over a manifest of what is exposed: the mount
 * list plus, for each key binary, its real path, size and content sha256.
 * Content digests are memoised in `root/cache/host-profile.json`, keyed by
 * (path, inode, size, mtime), so only the first call after an upgrade pays
 * for hashing (~0.3 s for a 100 MB node binary).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, readFile, readlink, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Exposure } from './plan-bwrap.js';
import { RESERVED_DESTINATIONS } from './plan-bwrap.js';
import { searchableBy } from './reachable-paths.js';
import { GENERATED_DESTINATIONS } from './runtime-files.js';

export const HOST_PROFILE = 'host';
export const KEY_TOOLS = ['python3', 'node', 'git', 'cc'] as const;

/** Top-level entries that are merged-usr symlinks on Debian 12; real dirs elsewhere. */
const TOP_LEVEL_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** /etc entries tools need: dynamic loader config, alternatives (cc, python), certs, zone. */
const ETC_ENTRIES = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/nsswitch.conf',
  '/etc/localtime',
  '/etc/ssl',
  '/etc/os-release',
  '/etc/mime.types',
];

export interface ToolEntry {
  name: string;
  /** Real path on the host (also its path inside the sandbox). */
  path: string;
  size: number;
  sha256: string;
}

export interface HostProfile {
  exposures: Exposure[];
  extraPath: string[];
  tools: ToolEntry[];
  /** `sha256:<hex>` over the manifest below. */
  digest: string;
}

export interface HostProfileInput {
  cacheFile: string;
  /** The host PATH searched for toolchains. */
  hostPath: string;
  /**
   * The job user: a toolchain outside /usr it cannot reach is skipped (bwrap,
   * as that uid, could not bind it). As root, ANY_JOB_USER: every workspace
   * has a uid of its own, so only what any uid reaches counts.
   */
  jobUser: { uid: number; gid: number };
}

export async function resolveHostProfile(input: HostProfileInput): Promise<HostProfile> {
  const exposures: Exposure[] = [{ kind: 'ro-bind', src: '/usr', dest: '/usr' }];
  for (const entry of [...TOP_LEVEL_LINKS, ...ETC_ENTRIES]) {
    const info = await lstat(entry).catch(() => undefined);
    if (info === undefined) continue;
    if (info.isSymbolicLink()) exposures.push({ kind: 'symlink', target: await readlink(entry), dest: entry });
    else exposures.push({ kind: 'ro-bind-try', src: entry, dest: entry });
  }
  // The generated passwd/group/hosts are per workspace (runtime-files.ts), added to each job's plan;
  // the manifest names them here, where they always stood, so the digest does not change.
  const generatedAt = exposures.length;

  const cache = await loadCache(input.cacheFile);
  const cacheBefore = JSON.stringify(cache);
  const tools: ToolEntry[] = [];
  const extraPath: string[] = [];
  for (const name of KEY_TOOLS) {
    const found = await findOnPath(name, input.hostPath, input.jobUser);
    if (found === undefined) continue;
    const prefix = toolchainPrefix(found);
    if (prefix !== undefined && !exposures.some((e) => e.kind !== 'symlink' && e.dest === prefix)) {
      // A toolchain outside /usr (e.g. /opt/node) is bound read-only at its own path and put on PATH.
      exposures.push({ kind: 'ro-bind', src: prefix, dest: prefix });
      extraPath.push(dirname(found));
    }
    tools.push({ name, ...(await digestFile(found, cache)) });
  }
  if (JSON.stringify(cache) !== cacheBefore) await saveCache(input.cacheFile, cache);

  const described = exposures.map(describeExposure);
  described.splice(generatedAt, 0, ...GENERATED_DESTINATIONS.map((dest) => `generated ${dest}`));
  const manifest = JSON.stringify({ profile: HOST_PROFILE, exposures: described, extraPath, tools });
  return { exposures, extraPath, tools, digest: `sha256:${createHash('sha256').update(manifest).digest('hex')}` };
}

function describeExposure(e: Exposure): string {
  if (e.kind === 'symlink') return `symlink ${e.dest} -> ${e.target}`;
  if (e.kind === 'data') return `generated ${e.dest}`;
  return `${e.kind} ${e.src} ${e.dest}`;
}

/** First executable `name` on the host PATH whose real location the job user can reach (e.g. not /root/.pyenv). */
async function findOnPath(name: string, hostPath: string, user: { uid: number; gid: number }): Promise<string | undefined> {
  for (const dir of hostPath.split(':')) {
    if (!dir.startsWith('/')) continue;
    const candidate = join(dir, name);
    const info = await stat(candidate).catch(() => undefined);
    if (!info?.isFile() || (info.mode & 0o111) === 0) continue;
    const real = await realpath(candidate);
    const prefix = toolchainPrefix(real);
    if (real.startsWith('/usr/') || (prefix !== undefined && (await searchableBy(prefix, user.uid, user.gid)))) return real;
  }
  return undefined;
}

/** `/opt/node/bin/node` → `/opt/node`; undefined for anything already under /usr or unsafe to bind. */
export function toolchainPrefix(realPath: string): string | undefined {
  if (realPath.startsWith('/usr/')) return undefined;
  const prefix = dirname(dirname(realPath));
  if (prefix.split('/').length < 3) return undefined;
  const reserved = RESERVED_DESTINATIONS.some((r) => r !== '/' && (prefix === r || prefix.startsWith(`${r}/`)));
  return reserved ? undefined : prefix;
}

type DigestCache = Record<string, { key: string; sha256: string }>;

async function digestFile(path: string, cache: DigestCache): Promise<{ path: string; size: number; sha256: string }> {
  const info = await stat(path);
  const key = `${info.ino}:${info.size}:${info.mtimeMs}`;
  const hit = cache[path];
  if (hit?.key === key) return { path, size: info.size, sha256: hit.sha256 };
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const sha256 = hash.digest('hex');
  cache[path] = { key, sha256 };
  return { path, size: info.size, sha256 };
}

async function loadCache(file: string): Promise<DigestCache> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as DigestCache) : {};
  } catch {
    return {};
  }
}

async function saveCache(file: string, cache: DigestCache): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(cache));
  await rename(tmp, file);
}
