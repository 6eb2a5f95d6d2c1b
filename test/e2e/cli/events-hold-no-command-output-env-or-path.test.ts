/**
 * Events carry ids, status, exit code and times only — never the command,
 * its output, its environment or a path. Markers are planted in a job's
 * argv, its environment, its output and an input's path, on fake and on
 * native; a subscription receives its event (claimed, followed, listed).
 * Then every events surface is searched: the events tables of the store
 * (rows and, after the job records that legitimately hold argv are
 * removed, the bytes of a vacuumed copy of the whole store), every file
 * under HEADSPACE_HOME that is not a job's captured output or a workspace's
 * own storage, and everything the events verbs printed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { filesUnder } from '../../helpers/files-under.js';
import { isStorage } from '../../helpers/recorded-surfaces.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

for (const provider of ['fake', 'native'] as const) {
  describe.runIf(provider === 'fake' || readiness.ready)(`events on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const scratch = mkdtempSync(join(tmpdir(), 'hs-event-markers-'));
    afterAll(async () => {
      cli(home, ['destroy', 'w', '--force'], { HEADSPACE_PROVIDER: provider });
      await cleanup();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('hold no planted argv, env value, output or path', { timeout: 60_000 }, () => {
      const marker = (what: string) => `${what}${randomBytes(10).toString('hex')}`;
      const argvMarker = marker('argvmark');
      const envMarker = marker('envmark');
      const pathMarker = marker('pathmark');
      const outputMarker = marker('outmark');
      const markers = [argvMarker, envMarker, pathMarker, outputMarker];
      writeFileSync(join(scratch, 'in.txt'), 'input');
      const env = { HEADSPACE_PROVIDER: provider, PLANTED: envMarker };
      const printed: string[] = [];
      const call = (args: string[]) => {
        const run = cli(home, args, env);
        if (args[0] === 'events' || args[0] === 'doctor') printed.push(run.stdout, run.stderr);
        return run;
      };
      expect(call(['create', '--workspace-id', 'w']).code).toBe(0);
      expect(call(['events', 'subscribe', '--all', '--name', 'everything']).code).toBe(0);
      const half = outputMarker.length / 2;
      const command =
        provider === 'fake'
          ? ['env', 'PLANTED', '&&', 'echo', argvMarker, '&&', 'exit', '3']
          : ['sh', '-c', `echo "$PLANTED" ${argvMarker}; printf '%s%s\\n' ${outputMarker.slice(0, half)} ${outputMarker.slice(half)}; exit 3`];
      const ran = call(['run', '--env', 'PLANTED', '--input', `${pathMarker}.txt=${join(scratch, 'in.txt')}`, 'w', ...command]);
      expect(ran.code, ran.stderr).toBe(6);
      // The job printed them itself: its output holds them, the events must not.
      expect(ran.stdout).toContain(argvMarker);
      expect(ran.stdout).toContain(envMarker);
      const claimed = call(['events', 'claim', 'everything', '--wait', '5', '--json']);
      expect(claimed.stdout).toContain('"name": "job.failed"');
      const eventId = (JSON.parse(claimed.stdout) as { key_findings: Array<{ id: string }> }).key_findings[0]!.id;
      expect(call(['events', 'ack', 'everything', eventId]).code).toBe(0);
      for (const args of [
        ['events', 'ls', '--json'],
        ['doctor', '--provider', provider],
      ])
        call(args);
      const followed = call(['events', 'follow', '--after-seq', '0', '--for', '0.5']);
      expect(followed.stdout).toContain(`"id":"${eventId}"`);

      const db = new Database(join(home, 'state.db'), { readonly: true });
      const rows = ['events', 'event_subscriptions', 'event_deliveries'].map((table) => JSON.stringify(db.prepare(`SELECT * FROM ${table}`).all()));
      const copy = join(scratch, 'copy.db');
      db.prepare('VACUUM INTO ?').run(copy);
      db.close();
      // The scan can see a marker: before the job records are removed, the copy holds the argv.
      expect(readFileSync(copy).toString('latin1')).toContain(argvMarker);
      // The job and its journal rows hold the argv by design (inspect shows it), and its receipts bind its inputs' paths (#16); without them, nothing else in the store may.
      const stripped = new Database(copy);
      stripped.exec('DELETE FROM jobs; DELETE FROM intents; DELETE FROM inputs; DELETE FROM job_receipts; VACUUM;');
      stripped.close();
      const surfaces = filesUnder(home, (path) => isStorage(path) || /\/jobs\/[^/]+\.log$/.test(path) || /state\.db/.test(path));
      const texts = [
        ...printed,
        ...rows,
        readFileSync(copy).toString('latin1'),
        ...surfaces.map((path) => {
          const bytes = readFileSync(path);
          if (path.endsWith(join('fake', 'state.json'))) {
            const state = JSON.parse(bytes.toString('utf8')) as { workspaces: Record<string, { files?: unknown; jobs?: unknown }> };
            // The fake's own record of a workspace's files is storage, not a record.
            for (const ws of Object.values(state.workspaces)) delete ws.files;
            return JSON.stringify(state);
          }
          return bytes.toString('latin1');
        }),
      ];
      for (const m of markers) for (const text of texts) expect(text.includes(m), `${m.replace(/[0-9a-f]+$/, '')} leaked`).toBe(false);
    });
  });
}
