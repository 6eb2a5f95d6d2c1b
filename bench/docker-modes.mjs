// How a docker workspace should run a job, measured side by side (one
// interleave, `/bin/true`): the docker provider's way (an exec per job in the
// workspace's long-lived container, through engine.run), a container per job
// on the workspace's volume (create + start + wait + remove through the
// Engine API, the same HostConfig), and `docker run --rm` from the CLI. The
// provider's choice and its comment (src/providers/docker/docker-provider.ts)
// rest on this table.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { interleave, ms, table } from './lib/stats.mjs';
import { loadAverage } from './lib/peers.mjs';
import { startDockerProviderLibrary } from './lib/docker-engine.mjs';

const run = promisify(execFile);
const PROVIDER = 'docker provider (exec per job)';
const PER_JOB = 'container per job (API, shared volume)';
const CLI = 'docker run --rm (CLI)';

export async function benchDockerModes({ repo, rounds = Number(process.env.HS_BENCH_ROUNDS ?? 20), warmup = 3 }) {
  const provider = await startDockerProviderLibrary(repo);
  if (provider.skipped) return { name: 'docker-modes', result: { skipped: provider.skipped }, markdown: `skipped: ${provider.skipped}` };
  const load = { before: loadAverage() };
  const { default: Docker } = await import('dockerode');
  const { planContainer } = await import(pathToFileURL(join(repo, 'dist', 'providers', 'docker', 'plan-container.js')).href);
  const { defaultPolicy } = await import(pathToFileURL(join(repo, 'dist', 'core', 'policy', 'policy.js')).href);
  const engine = new Docker({ socketPath: process.env.DOCKER_HOST.replace(/^unix:\/\//, '') });
  const volume = `hs-bench-modes-${process.pid}`;
  await engine.createVolume({ Name: volume });
  const image = (await engine.getImage('headspace/minimal:local').inspect()).Id;
  const plan = planContainer({
    workspaceId: 'bench',
    rootTag: 'bench',
    profile: 'minimal',
    imageRef: 'headspace/minimal:local',
    imageId: image,
    policy: defaultPolicy(),
    jobUser: { uid: 65534, gid: 65534 },
    name: 'unused',
    volumeName: volume,
  });
  delete plan.name;
  Object.assign(plan, { Entrypoint: ['/bin/true'], Cmd: [] });
  plan.HostConfig.Init = false;
  const client = ['/usr/local/bin/docker', '/usr/bin/docker'];
  try {
    const tables = await interleave(
      [
        { name: PROVIDER, run: () => provider.run(0, ['/bin/true']) },
        {
          name: PER_JOB,
          run: async () => {
            const c = await engine.createContainer(plan);
            await c.start();
            await c.wait();
            await c.remove({ force: true });
          },
        },
        {
          name: CLI,
          run: () =>
            run(client.find(Boolean), [
              '-H',
              process.env.DOCKER_HOST,
              'run',
              '--rm',
              '--network',
              'none',
              '-m',
              '512m',
              '--memory-swap',
              '512m',
              '--pids-limit',
              '128',
              '--cpus',
              '1',
              'headspace/minimal:local',
              '/bin/true',
            ]),
        },
      ],
      { rounds, warmup },
    );
    load.after = loadAverage();
    const floor = tables[CLI].median;
    const rows = Object.entries(tables).map(([name, t]) => ({
      mode: name,
      'median ms': ms(t.median),
      'p90 ms': ms(t.p90),
      'x docker run --rm': (t.median / floor).toFixed(2),
    }));
    const markdown = `${table(rows, ['mode', 'median ms', 'p90 ms', 'x docker run --rm'])}\n\n\`/bin/true\`, ${rounds} interleaved rounds after ${warmup} warm-ups; load average ${load.before.join(', ')} → ${load.after.join(', ')}. The provider's figure includes the engine's bookkeeping (store, log, result package).`;
    return { name: 'docker-modes', result: { rounds, warmup, load, tables }, markdown };
  } finally {
    await engine
      .getVolume(volume)
      .remove()
      .catch(() => undefined);
    await provider.close();
  }
}
