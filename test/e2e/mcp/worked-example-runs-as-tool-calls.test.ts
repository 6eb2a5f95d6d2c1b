/**
 * The README's worked example as MCP tool calls against the real built
 * server: create, run a job that declares the file it writes, inspect, read
 * the file as a resource, export it to the host, destroy. Runs on the native
 * provider when the host is ready for it (real isolation), else on the fake.
 * Each result carries the package as structuredContent (the client validates
 * it against the output schema) and the same package as bounded markdown.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

let mcp: McpHandle;
let provider: 'native' | 'fake';
const outDir = mkdtempSync(join(tmpdir(), 'hs-mcp-export-'));

beforeAll(async () => {
  provider = (await nativeReadiness()).ready ? 'native' : 'fake';
  mcp = await connectStdio({ provider, args: ['--root', outDir] });
});
afterAll(async () => {
  await mcp?.close();
  rmSync(outDir, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>): Promise<{ pkg: ResultPackage; text: string }> {
  const result = await mcp.client.callTool({ name, arguments: args });
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
  return { pkg: result.structuredContent as unknown as ResultPackage, text: textOf(result) };
}

describe('the worked example over MCP', () => {
  it('creates, runs with a declared artifact, inspects, reads, exports and destroys', async () => {
    const created = await call('create', { workspaceId: 'demo', purpose: 'worked example over MCP' });
    expect(created.pkg.status).toBe('success');
    expect(created.pkg.provenance.provider).toBe(provider);
    expect(created.text).toContain(`workspace demo is ready on ${provider}`);

    const argv =
      provider === 'native'
        ? [
            'python3',
            '-c',
            "import math, pathlib; pathlib.Path('out').mkdir(exist_ok=True); v = f'pi={round(math.pi, 10)}'; pathlib.Path('out/pi.txt').write_text(v); print(v)",
          ]
        : ['write', 'out/pi.txt', 'pi=3.1415926536', '&&', 'cat', 'out/pi.txt'];
    const ran = await call('run', { workspaceId: 'demo', jobId: 'job-pi', argv, declares: [{ name: 'out/pi.txt', purpose: 'pi to 10 digits' }] });
    expect(ran.pkg.status).toBe('success');
    expect(ran.pkg.provenance.command).toEqual(argv);
    expect(ran.pkg.evidence[0]?.excerpt).toContain('pi=3.1415926536');
    expect(ran.text).toContain('pi=3.1415926536');
    expect(ran.pkg.artifacts.map((a) => a.name)).toEqual(['out/pi.txt']);

    const inspected = await call('inspect', { handle: 'job-pi' });
    expect(inspected.pkg.status).toBe('success');
    expect(inspected.pkg.provenance.job_id).toBe('job-pi');

    const file = await mcp.client.readResource({ uri: 'headspace://workspace/demo/file/out/pi.txt' });
    expect(file.contents).toEqual([{ uri: 'headspace://workspace/demo/file/out/pi.txt', mimeType: 'text/plain; charset=utf-8', text: 'pi=3.1415926536' }]);

    const to = join(outDir, 'pi.txt');
    const exported = await call('export', { workspaceId: 'demo', name: 'out/pi.txt', to });
    expect(exported.pkg.status).toBe('success');
    expect(readFileSync(to, 'utf8')).toBe('pi=3.1415926536');

    const destroyed = await call('destroy', { workspaceId: 'demo' });
    expect(destroyed.pkg.status).toBe('success');
    expect(destroyed.text).toContain('lifecycle path: ready -> cancelled -> destroyed');
  }, 90_000);
});
