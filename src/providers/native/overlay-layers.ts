/**
 * Pure planning for the native snapshot mechanism (#14): an overlayfs layer
 * stack on each workspace's own ext4 image (docs/ARCHITECTURE.md, "Snapshots").
 *
 * A workspace's image (mounted host-side at `<mount base>/img/<id>`, never
 * inside a job) holds `layers/<layer>/` directories. One of them is the
 * workspace's writable upper layer; the others are frozen. The job's
 * /workspace is an overlay of the upper on a chain of frozen lower layers,
 * which may live on ANOTHER workspace's image (a fork shares its parent's
 * frozen layers instead of copying them):
 *
 *   checkpoint = the upper becomes a frozen lower, a new empty upper on top
 *                (a remount: about 5 ms, whatever the tree);
 *   restore    = a new empty upper on the checkpoint's chain;
 *   fork       = a new workspace whose lowers are the checkpoint's chain;
 *   changes    = only the paths present in the layers the two chains do not
 *                share (plus the children of those directories) are compared.
 *
 * A layer's content never changes once frozen, so a chain (a list of layer
 * references, top first) names one tree for ever. A layer is deleted only
 * when no workspace's chain and no checkpoint's chain references it.
 */
import { createHash } from 'node:crypto';
import type { TreeFacts } from '../../core/snapshots/snapshot-ops.js';

/** One frozen layer: the directory `layers/<layer>` on the image of workspace (or retained store) `store`. */
export interface LayerRef {
  store: string;
  layer: string;
  /** The job identity of the workspace that wrote the layer (layer-idmaps.ts); absent for layers made before it was recorded. */
  owner?: { uid: number; gid: number };
}

/** What meta.json records of a layered workspace: its upper and the frozen chain under it, with that chain's facts. */
export interface LayerStack {
  upper: string;
  /** Top first; empty for a workspace with no checkpoint yet. */
  lowers: LayerRef[];
  /** The facts of the tree the lowers alone make (the last checkpoint's, or a fork's baseline). */
  lowerFacts: TreeFacts;
}

/** The digest of an empty tree: the sum of no entries. */
export const EMPTY_SUM = '0'.repeat(64);
/**
 * One digest notation everywhere (`sha256:<64 hex>`), like the fake's tree
 * digest and every other digest headspace prints. Checkpoints recorded before
 * that carry `sha256-sum:`; they are still read (and verify against their own
 * recorded digest), never written.
 */
const DIGEST_PREFIX = 'sha256:';
const LEGACY_PREFIX = 'sha256-sum:';

/** The 256-bit sum a tree digest holds, from either notation. */
function sumOf(digest: string): bigint {
  const hex = digest.startsWith(LEGACY_PREFIX) ? digest.slice(LEGACY_PREFIX.length) : digest.slice(DIGEST_PREFIX.length);
  return BigInt(`0x${hex}`);
}
const MOD = 1n << 256n;

export const EMPTY_FACTS: TreeFacts = { fileCount: 0, bytes: 0, digest: `${DIGEST_PREFIX}${EMPTY_SUM}` };

/** Layer names: random, so nothing about a checkpoint (its id, label, order) shows in a job's mountinfo. */
export const LAYER_NAME = /^L[0-9a-f]{16}$/;

/** One tree entry as the digest counts it. `sha256` is of the content (a link's target text); null for a directory. */
export interface DigestEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink';
  mode: number;
  size: number;
  sha256: string | null;
}

/**
 * The tree digest is the sum (mod 2^256) of one hash per entry: equal trees
 * have equal digests whatever order they are visited in, and a checkpoint's
 * digest follows from its lower chain's by subtracting the entries that
 * changed and adding their new versions, so it costs what changed, not the
 * tree (the multiset-hash construction; sha256 per entry).
 */
export function entryHash(entry: DigestEntry): bigint {
  const text = `${entry.type}\0${(entry.mode & 0o7777).toString(8)}\0${entry.sha256 ?? ''}\0${entry.path}`;
  return BigInt(`0x${createHash('sha256').update(text).digest('hex')}`);
}

/** The facts of a tree after replacing the entries `before` (as they were) with `after` (as they are). */
export function applyDelta(facts: TreeFacts, before: readonly DigestEntry[], after: readonly DigestEntry[]): TreeFacts {
  let sum = sumOf(facts.digest);
  let fileCount = facts.fileCount;
  let bytes = facts.bytes;
  for (const entry of before) {
    sum = (sum - entryHash(entry) + MOD) % MOD;
    if (entry.type !== 'directory') {
      fileCount -= 1;
      bytes -= entry.size;
    }
  }
  for (const entry of after) {
    sum = (sum + entryHash(entry)) % MOD;
    if (entry.type !== 'directory') {
      fileCount += 1;
      bytes += entry.size;
    }
  }
  return { fileCount, bytes, digest: `${DIGEST_PREFIX}${sum.toString(16).padStart(64, '0')}` };
}

/**
 * Overlay mount options naming every layer RELATIVE to the image mount area
 * (`<mount base>/img`, the mount's working directory): mountinfo inside a job
 * prints these strings as given, so relative names keep every host path out
 * of it (probe scenario `proc-host-paths`). Options that would write extra
 * state we would have to read back are off: no index, no metacopy, no
 * redirects (a renamed lower directory is copied, EXDEV to rename(2)), no xino.
 * `empty` pads a lowers-only (read-only) view, which overlayfs wants with two
 * lowers at least.
 */
export function overlayOptions(
  stack: { store: string; upper: string | null; lowers: readonly LayerRef[]; lowerPaths?: readonly string[] },
  emptyDir: string,
): string {
  // lowerPaths: the idmapped binds standing for some lowers (layer-idmaps.ts), else each layer's own directory.
  const lowers = stack.lowerPaths ?? stack.lowers.map((ref) => `${ref.store}/layers/${ref.layer}`);
  const fixed = 'index=off,metacopy=off,redirect_dir=off,xino=off';
  if (stack.upper === null) {
    // An empty chain needs no mount at all (its view is the empty directory itself): the caller never asks.
    const padded = lowers.length >= 2 ? lowers : [...lowers, emptyDir];
    return `ro,lowerdir=${padded.join(':')},${fixed}`;
  }
  const lower = lowers.length === 0 ? emptyDir : lowers.join(':');
  return `lowerdir=${lower},upperdir=${stack.store}/layers/${stack.upper},workdir=${stack.store}/work,${fixed}`;
}

/** The chains' layers that the two do not share (chains share a common bottom part), each side's own. */
export function unsharedLayers(a: readonly LayerRef[], b: readonly LayerRef[]): { onlyA: LayerRef[]; onlyB: LayerRef[] } {
  let shared = 0;
  while (shared < a.length && shared < b.length && sameLayer(a[a.length - 1 - shared]!, b[b.length - 1 - shared]!)) shared++;
  return { onlyA: a.slice(0, a.length - shared), onlyB: b.slice(0, b.length - shared) };
}

export function sameLayer(a: LayerRef, b: LayerRef): boolean {
  return a.store === b.store && a.layer === b.layer;
}

/** Every store a chain needs mounted, in the order first used. */
export function storesOf(chain: readonly LayerRef[]): string[] {
  return [...new Set(chain.map((ref) => ref.store))];
}

/**
 * Which of `candidates` no chain in `live` references: the layers a drop,
 * restore or removal may delete. Only candidates are considered, never every
 * unreferenced layer: one a concurrent checkpoint has just made (and not yet
 * recorded) must not go.
 */
export function unreferencedLayers(candidates: readonly LayerRef[], live: ReadonlyArray<readonly LayerRef[]>): LayerRef[] {
  const keep = new Set(live.flatMap((chain) => chain.map((ref) => `${ref.store}/${ref.layer}`)));
  const seen = new Set<string>();
  return candidates.filter((ref) => {
    const key = `${ref.store}/${ref.layer}`;
    if (keep.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
