/**
 * Shared gate for tests that need real bubblewrap and cgroups: runs the
 * provider's own probe once and says why the host is not ready, so skipped
 * suites carry a reason instead of failing on a laptop without root.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';

export interface NativeReadiness {
  ready: boolean;
  reason: string;
  /** Each workspace gets a loop-mounted filesystem of its own (root with loop devices): storage enforced, no host path in mountinfo. */
  ownFilesystem: boolean;
  /** The probe's storage-quota detail: why storage is or is not enforced. */
  storageDetail: string;
}

let cached: Promise<NativeReadiness> | undefined;

export function nativeReadiness(): Promise<NativeReadiness> {
  return (cached ??= (async () => {
    if (process.platform !== 'linux') return { ready: false, reason: 'needs Linux (bubblewrap, cgroups)', ownFilesystem: false, storageDetail: 'not Linux' };
    const dir = mkdtempSync(join(tmpdir(), 'hs-native-probe-'));
    try {
      const probe = await createNativeProvider({ root: dir }).probe();
      const failed = probe.checks.filter((c) => !c.ok);
      const storage = probe.checks.find((c) => c.name === 'storage-quota');
      return {
        ready: probe.ready,
        reason: failed.map((c) => `${c.name}: ${c.detail} (${c.remedy ?? ''})`).join('; ') || 'ready',
        ownFilesystem: probe.ready && storage?.detail.startsWith('enforced') === true,
        storageDetail: storage?.detail ?? 'no storage-quota check',
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })());
}

/** The native provider's optional features on this host (`snapshots`, `network-allowlist`), read once from a throwaway root; none when it cannot tell. */
export async function nativeFeatures(): Promise<string[]> {
  const probeRoot = mkdtempSync(join(tmpdir(), 'hs-native-caps-'));
  try {
    return await createNativeProvider({ root: probeRoot })
      .capabilities()
      .then((caps) => caps.features ?? [])
      .catch(() => []);
  } finally {
    rmSync(probeRoot, { recursive: true, force: true });
  }
}
