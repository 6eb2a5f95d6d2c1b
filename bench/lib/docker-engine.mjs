// The Docker Engine the docker-provider contenders run on: the one
// scripts/setup-docker.sh finds or starts (a private dockerd in a scratch
// dir, as root), with the profile images built. Stopped afterwards by
// scripts/stop-docker.sh when this run started it (by pid, never by name).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

let shared;

/** { host } or { skipped }; the engine lives until closeDockerEngine(). Sets DOCKER_HOST for the providers. */
export async function startDockerEngine(repo) {
  if (shared) return shared;
  let out;
  try {
    out = execFileSync('bash', [join(repo, 'scripts', 'setup-docker.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, CI: '' },
    });
  } catch (error) {
    return { skipped: `scripts/setup-docker.sh failed: ${String(error.message).slice(0, 200)}` };
  }
  const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace(/^'(.*)'$/, '$1')]));
  if (vars.HEADSPACE_DOCKER_SKIP) return { skipped: vars.HEADSPACE_DOCKER_SKIP };
  process.env.DOCKER_HOST = vars.DOCKER_HOST;
  shared = { host: vars.DOCKER_HOST, state: vars.HEADSPACE_DOCKER_STATE };
  return shared;
}

export function closeDockerEngine(repo) {
  if (!shared) return;
  if (shared.state) execFileSync('bash', [join(repo, 'scripts', 'stop-docker.sh'), shared.state], { stdio: 'inherit' });
  shared = undefined;
}

/**
 * The docker provider through the library (engine.run), in `count`
 * workspaces of its own home: { run(w, argv), close() } or { skipped }.
 */
export async function startDockerProviderLibrary(repo, count = 1) {
  const engineUp = await startDockerEngine(repo);
  if (engineUp.skipped) return engineUp;
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-docker-lib-'));
  const engine = api.createHeadspace({ home, defaultProvider: 'docker' });
  const workspaces = [];
  try {
    for (let i = 0; i < count; i++) {
      const created = await engine.create({ purpose: 'docker provider bench' });
      if (created.status !== 'success') throw new Error(`create: ${created.status}: ${created.outcome_summary}`);
      workspaces.push(created.provenance.workspace_id);
    }
  } catch (error) {
    engine.close();
    rmSync(home, { recursive: true, force: true });
    return { skipped: `the docker provider could not create a workspace: ${String(error.message ?? error).slice(0, 200)}` };
  }
  return {
    version: engineUp.host,
    async run(w, argv) {
      const r = await engine.run({ workspaceId: workspaces[w], argv });
      if (r.status !== 'success') throw new Error(`engine.run (docker): ${r.status}: ${r.outcome_summary}`);
    },
    async close() {
      for (const id of workspaces) await engine.destroy({ workspaceId: id, force: true }).catch(() => undefined);
      engine.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
