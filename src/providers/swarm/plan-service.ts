/**
 * A swarm workspace's service: one replica, never restarted, whose task
 * anchors the workspace on the node Swarm chose. Pure, and tested on its
 * output.
 *
 * Why the task anchors the workspace instead of being it: a Swarm service on
 * Engine 20.10 (API 1.41) cannot carry the isolation the docker provider
 * gives a workspace container — its own seccomp profile, no-new-privileges,
 * masked /proc paths, MemorySwap, KernelMemoryTCP. `headspace probe` on a
 * worker measured what that costs when the task container runs the jobs:
 * ptrace, vsock, netlink and raw-ish sockets, modify_ldt, memfd_secret,
 * io_setup and sync() allowed, /proc/kallsyms, /proc/config.gz and the boot
 * id readable, 512 MiB of socket buffers past a 128 MiB budget. So the
 * workspace container is the docker provider's own, made on the task's node
 * through that node's engine (swarm-provider.ts), and the task holds
 * everything Swarm is for:
 *  - placement: Swarm's spread within the operator's constraints;
 *  - capacity: it reserves the workspace's memory budget, so Swarm places no
 *    workspace on a node without room for it, and none that no node can hold
 *    (cpu is a ceiling, not reserved: it is overcommitted as on one machine —
 *    reserving it let only two 1-cpu workspaces onto a 2-core node);
 *  - the volume: it mounts the workspace volume, so the volume lives on its
 *    node as long as the service does;
 *  - liveness: the manager reports the task's node down when it goes, and the
 *    restart condition none means Swarm never re-creates it elsewhere.
 * The anchor itself runs `sleep infinity` with nothing: no network, a
 * read-only root, every capability dropped, a non-root uid, 16 MiB and 8 pids.
 */
import type { Policy } from '../../core/policy/policy.js';

/** The anchor's own processes: non-root, and never a job uid (600001+). */
export const ANCHOR_USER = '65534:65534';
/** What the anchor itself may use; the workspace's budget is reserved, not given to it. */
export const ANCHOR_LIMITS = { MemoryBytes: 16 * 1024 * 1024, Pids: 8, NanoCPUs: 100_000_000 } as const;
/** Restart condition none: a task that ends (its node lost) is never replaced by an empty one elsewhere. */
export const RESTART_NONE = { Condition: 'none', MaxAttempts: 0 } as const;

export interface AnchorInput {
  /** The service name, also the workspace volume's and the workspace container's (hs-<root tag>-<id>). */
  name: string;
  /** The image by id (`sha256:…`): no node ever pulls, and a moved tag changes nothing. */
  imageId: string;
  policy: Policy;
  /** The provider's view of the workspace, kept on the service (Swarm labels) for other processes and doctor. */
  labels: Record<string, string>;
  constraints: readonly string[];
}

export interface AnchorSpec {
  Name: string;
  Labels: Record<string, string>;
  TaskTemplate: {
    ContainerSpec: {
      Image: string;
      Command: string[];
      Args: string[];
      User: string;
      Labels: Record<string, string>;
      ReadOnly: true;
      Init: true;
      CapabilityDrop: ['ALL'];
      Mounts: [{ Type: 'volume'; Source: string; Target: '/workspace'; ReadOnly: true; VolumeOptions: { NoCopy: true; Labels: Record<string, string> } }];
    };
    Resources: {
      Limits: typeof ANCHOR_LIMITS;
      Reservations: { MemoryBytes: number };
    };
    RestartPolicy: typeof RESTART_NONE;
    Placement: { Constraints: string[] };
    /** None: a task with no network gets the engine's default bridge, which the nodes run without: loopback only. */
    Networks: [];
  };
  Mode: { Replicated: { Replicas: 1 } };
}

export function planAnchor(input: AnchorInput): AnchorSpec {
  if (!/^sha256:[0-9a-f]{64}$/.test(input.imageId)) throw new RangeError('a workspace service names its image by id');
  const { budget } = input.policy;
  return {
    Name: input.name,
    Labels: { ...input.labels },
    TaskTemplate: {
      ContainerSpec: {
        Image: input.imageId,
        Command: ['sleep'],
        Args: ['infinity'],
        User: ANCHOR_USER,
        Labels: { ...input.labels },
        ReadOnly: true,
        Init: true,
        CapabilityDrop: ['ALL'],
        // Read-only here: the anchor only keeps the volume on its node; NoCopy keeps the image's /workspace out of it.
        Mounts: [{ Type: 'volume', Source: input.name, Target: '/workspace', ReadOnly: true, VolumeOptions: { NoCopy: true, Labels: { ...input.labels } } }],
      },
      Resources: {
        Limits: ANCHOR_LIMITS,
        Reservations: { MemoryBytes: budget.memoryBytes },
      },
      RestartPolicy: RESTART_NONE,
      Placement: { Constraints: [...input.constraints] },
      Networks: [],
    },
    Mode: { Replicated: { Replicas: 1 } },
  };
}
