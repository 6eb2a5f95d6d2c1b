import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Engine } from '../../src/core/engine.js';

/** A temporary project directory for manifest tests: write files into it, remove it after. */
export function makeProject(files: Record<string, string> = {}): { dir: string; write(path: string, text: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'hs-manifest-'));
  const write = (path: string, text: string) => {
    const at = join(dir, path);
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, text);
    return at;
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  return { dir, write, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A manifest for the fake provider: a directory input, an env file, an artifact, a setup command that writes it. */
export const EXAMPLE_MANIFEST = `schema: headspace.workspace/v1
id: pi-digits
purpose: compute pi to ten digits
owner: tests
provider: fake
policy:
  budget:
    memoryBytes: 268435456
    wallClockSeconds: 60
inputs:
  - path: src
    to: code
  - path: data/seed.txt
env: [PI_TOKEN]
envFiles: [.env]
artifacts:
  - name: out/pi.txt
    purpose: the digits
setup:
  - argv: [write, out/pi.txt, "3.1415926535"]
  - argv: [env, PI_TOKEN]
`;

export const EXAMPLE_FILES = {
  'headspace.yml': EXAMPLE_MANIFEST,
  'src/pi.py': 'print("3.1415926535")\n',
  'src/util/helpers.py': 'X = 1\n',
  'data/seed.txt': '42\n',
  '.env': 'PI_MODE=fast\n',
};

/** Nothing was made: no workspace in the store, none in the provider's state, no receipt. */
export async function nothingWasCreated(engine: Engine, home: string): Promise<{ workspaces: number; receipts: boolean }> {
  const { existsSync } = await import('node:fs');
  const listed = await engine.ls({ all: true });
  const workspaces = listed.key_findings.filter((f) => typeof f === 'object' && f.kind === 'workspace').length;
  return { workspaces, receipts: existsSync(join(home, 'receipts')) };
}
