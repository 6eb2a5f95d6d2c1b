/**
 * Whether the docker suites can run here, and why not. The engine is the one
 * scripts/setup-docker.sh started or found (DOCKER_HOST); a machine without
 * one skips them with the reason, except under CI=true, where a missing
 * engine fails the run (CI must exercise the docker provider for real).
 */
import Docker from 'dockerode';
import { imageOfProfile } from '../../src/providers/docker/profiles.js';

export interface DockerReadiness {
  ready: boolean;
  reason: string;
}

export async function dockerReadiness(): Promise<DockerReadiness> {
  const skip = process.env.HEADSPACE_DOCKER_SKIP;
  const verdict = (reason: string): DockerReadiness => {
    if (process.env.CI === 'true') throw new Error(`CI=true but the docker suites cannot run: ${reason}`);
    return { ready: false, reason };
  };
  if (skip !== undefined && skip !== '') return verdict(skip);
  const host = process.env.DOCKER_HOST;
  const engine = host?.startsWith('unix://') ? new Docker({ socketPath: host.slice(7) }) : new Docker();
  try {
    await engine.ping();
  } catch (error) {
    return verdict(
      `no Docker Engine answers at ${host ?? '/var/run/docker.sock'} (${(error as Error).message.split('\n')[0]}); run eval "$(bash scripts/setup-docker.sh)" first`,
    );
  }
  const image = imageOfProfile('host')!;
  try {
    await engine.getImage(image).inspect();
  } catch {
    return verdict(`the engine has no ${image} image; run scripts/setup-docker.sh to build it`);
  }
  return { ready: true, reason: '' };
}

/**
 * The environment a docker e2e test's CLI calls need, which the CLI helper clears: the docker provider and the
 * engine's address (DOCKER_HOST, when set), then `extra`.
 */
export function dockerCliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    HEADSPACE_PROVIDER: 'docker',
    ...(process.env.DOCKER_HOST === undefined ? {} : { DOCKER_HOST: process.env.DOCKER_HOST }),
    ...extra,
  };
}
