/**
 * What headspace recorded under a home, as text, for the recording-guarantee
 * tests: every file except a workspace's own storage (its files folder, or
 * the filesystem image holding them: that is where contents belong), with the
 * fake provider's workspace FILES left out of its state file for the same
 * reason. Planted markers are searched for in these.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder } from './files-under.js';

/** Each recorded file under `home`: its path and its bytes as latin1 text. */
export function recordedSurfaces(home: string): Array<{ path: string; text: string }> {
  return filesUnder(home, (path) => /\/workspaces\/[^/]+\/(files|storage\.img)$/.test(path)).map((path) => {
    const bytes = readFileSync(path);
    if (path.endsWith(join('fake', 'state.json'))) {
      const state = JSON.parse(bytes.toString('utf8')) as { workspaces: Record<string, { files?: unknown }> };
      for (const ws of Object.values(state.workspaces)) delete ws.files;
      return { path, text: JSON.stringify(state) };
    }
    return { path, text: bytes.toString('latin1') };
  });
}
