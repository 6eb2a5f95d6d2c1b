/**
 * The parts the native provider is composed of (native-provider.ts wires
 * them; the verbs' bodies in run-native-job.ts, create-native-workspace.ts
 * and remove-native-workspace.ts use them). One instance's parts: nothing
 * here is shared between provider instances.
 */
import type { ExecHelperInstaller } from './exec-helper.js';
import type { HostFacts } from './host-facts.js';
import type { JobUsers } from './job-users.js';
import type { Layout } from './layout.js';
import type { StandbyPool } from './standby-pool.js';
import type { WorkspaceCgroups } from './workspace-cgroups.js';
import type { WorkspaceStorage } from './workspace-storage.js';

export interface NativeParts {
  layout: Layout;
  /** The runtime directory's folder for this root (mount-base.ts). */
  mountBase: string;
  /** headspace's own state: a host path overlapping any of these would expose other workspaces (#10 item 7). */
  protectedDirs: readonly string[];
  users: JobUsers;
  host: HostFacts;
  storage: WorkspaceStorage;
  cgroups: WorkspaceCgroups;
  standbys: StandbyPool;
  execHelper: ExecHelperInstaller;
}
