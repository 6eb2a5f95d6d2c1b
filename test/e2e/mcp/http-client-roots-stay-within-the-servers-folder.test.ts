/**
 * Over HTTP the client is whoever holds the bearer token, not the operator:
 * its roots are narrowed to the server's own (the --root folders, else the
 * directory it started in), as an operator's --root narrows them over stdio.
 * A red team's client that answered roots/list with `file:///` put
 * /etc/shadow into a workspace from a server started in /tmp without --root.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHttp, textOf, type HttpServerHandle } from '../../helpers/mcp.js';

const base = mkdtempSync(join(tmpdir(), 'hs-mcp-http-roots-'));
const started = join(base, 'started-here');
const outside = join(base, 'outside');
let server: HttpServerHandle | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

describe("an HTTP client's roots", () => {
  it('reach no further than the directory the server started in', async () => {
    for (const dir of [started, outside]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'data.txt'), `${dir}\n`);
    }
    server = await startHttp({ cwd: started });
    expect(server.stderr()).toContain('narrowed to the folder below, a ceiling they cannot widen over HTTP');
    const client = await server.connect({ roots: ['/'] });
    const created = await client.callTool({ name: 'create', arguments: { workspaceId: 'roots-ws' } });
    expect(created.isError, textOf(created)).toBeFalsy();
    const put = (hostPath: string, destination: string) => client.callTool({ name: 'put', arguments: { workspaceId: 'roots-ws', hostPath, destination } });

    const refused = await put(join(outside, 'data.txt'), 'a');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('policy_denied');
    expect(textOf(refused)).toContain(`within the directory the server started in: ${started}`);
    expect(textOf(refused)).toContain('needs the server restarted with a --root that holds it');

    const inside = await put(join(started, 'data.txt'), 'b');
    expect(inside.isError, textOf(inside)).toBeFalsy();
  });
});
