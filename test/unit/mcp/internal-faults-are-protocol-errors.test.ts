/**
 * A throw that is not an EngineError is our bug, not a refusal: the client
 * gets JSON-RPC -32603 with a one-line message, the stack goes to the
 * server's diagnostics log only, and an EngineError of any category other
 * than INTERNAL still comes back as a tool error result. Driven in memory
 * (the SDK's linked transport pair) so the faults can be injected.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/core/engine.js';
import { EngineError } from '../../../src/core/errors.js';
import { createMcpServer } from '../../../src/mcp/server.js';

async function connectWith(engine: Partial<Engine>): Promise<{ client: Client; logged: string[]; close(): Promise<void> }> {
  const logged: string[] = [];
  const hs = createMcpServer(() => ({ close() {}, ...engine }) as Engine, { log: (line) => logged.push(line) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await hs.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  return { client, logged, close: async () => (await client.close(), await hs.close()) };
}

describe('internal faults', () => {
  it('become -32603 with the stack logged, not sent', async () => {
    const { client, logged, close } = await connectWith({ ls: () => Promise.reject(new TypeError('cannot read properties of undefined')) });
    try {
      const error = await client.callTool({ name: 'ls', arguments: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32603);
      expect((error as McpError).message).toContain('internal error in headspace');
      expect((error as McpError).message).not.toContain('    at ');
      expect(logged.join('\n')).toContain('TypeError: cannot read properties of undefined\n    at ');
    } finally {
      await close();
    }
  });

  it('include an EngineError coded INTERNAL', async () => {
    const { client, close } = await connectWith({ ls: () => Promise.reject(new EngineError('INTERNAL', 'invariant broken')) });
    try {
      expect(((await client.callTool({ name: 'ls', arguments: {} }).catch((e: unknown) => e)) as McpError).code).toBe(-32603);
    } finally {
      await close();
    }
  });

  it('exclude an infrastructure failure the engine reports on purpose, which is a tool error', async () => {
    const { client, close } = await connectWith({ ls: () => Promise.reject(new EngineError('PROVIDER_FAILURE', 'bwrap vanished')) });
    try {
      const result = await client.callTool({ name: 'ls', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result._meta?.['headspace/error']).toMatchObject({ code: 7, category: 'infrastructure_failure', reason: 'PROVIDER_FAILURE' });
    } finally {
      await close();
    }
  });
});
