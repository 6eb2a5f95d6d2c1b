/** Runtime profiles a workspace can be created with; `host` exposes the host toolchains read-only. */
export const PROFILES = ['host'] as const;

export type Profile = (typeof PROFILES)[number];
