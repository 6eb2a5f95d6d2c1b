/**
 * Profile → image reference. A profile names an image; create resolves it to
 * the image's content digest (its id) and the container is made from that
 * digest, so a tag moved later never changes a workspace.
 *
 * Defaults are the images scripts/setup-docker.sh builds locally (no
 * registry is reachable on the machines we test on):
 *   host    → headspace/python:local  (busybox + the host's python3)
 *   minimal → headspace/minimal:local (busybox only)
 * A user points a profile at their own image with
 * HEADSPACE_DOCKER_IMAGE_<PROFILE> (e.g. HEADSPACE_DOCKER_IMAGE_HOST=python:3.12-slim,
 * pulled beforehand); the image needs /bin/sh (jobs are run and stopped
 * through it) and runs as the workspace's non-root uid.
 */
export const DEFAULT_PROFILE_IMAGES: Readonly<Record<string, string>> = Object.freeze({
  host: 'headspace/python:local',
  minimal: 'headspace/minimal:local',
});

export function imageOfProfile(profile: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env[`HEADSPACE_DOCKER_IMAGE_${profile.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`];
  if (override !== undefined && override.trim() !== '') return override.trim();
  return DEFAULT_PROFILE_IMAGES[profile];
}
