/**
 * A workspace's files as MCP resources, read whole and bounded. The bytes come
 * through the provider's own `read`, which refuses symlinks, directories and
 * special files and never leaves the workspace (the same rules export
 * follows); this module only decodes the URI, bounds the size and picks text
 * or base64.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Engine } from '../core/engine.js';
import { EngineError } from '../core/errors.js';

export const FILE_URI_TEMPLATE = 'headspace://workspace/{workspaceId}/file/{+path}';

/** A resource read returns at most this many bytes; a larger file is refused whole, never cut silently. */
export const FILE_RESOURCE_MAX_BYTES = 256 * 1024;

export async function readWorkspaceFile(engine: Engine, uri: string, workspaceId: string, encodedPath: string): Promise<ReadResourceResult> {
  const path = decodePath(encodedPath);
  // The facade's inspect validates the id and names the workspace's provider.
  const ws = await engine.inspect({ handle: workspaceId });
  if (ws.provenance.job_id !== null || ws.provenance.workspace_id !== workspaceId || ws.provenance.provider === null) {
    throw new EngineError('WORKSPACE_NOT_FOUND', `${workspaceId} is not a workspace id`, { hint: 'list workspaces with the ls tool' });
  }
  const provider = await engine.provider(ws.provenance.provider);
  const stream = await provider.read(workspaceId, path);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    if (stream.size > FILE_RESOURCE_MAX_BYTES) throw tooLarge(path, stream.size);
    for await (const chunk of stream.chunks) {
      total += chunk.length;
      if (total > FILE_RESOURCE_MAX_BYTES) throw tooLarge(path, total); // grew while we read
      chunks.push(chunk);
    }
  } finally {
    await stream.close();
  }
  const bytes = Buffer.concat(chunks);
  const text = asText(bytes);
  return {
    contents: [text === null ? { uri, mimeType: 'application/octet-stream', blob: bytes.toString('base64') } : { uri, mimeType: 'text/plain; charset=utf-8', text }],
  };
}

function decodePath(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new EngineError('BAD_PATH', 'the file path in the resource URI is not valid percent-encoding', { hint: `use ${FILE_URI_TEMPLATE} with the path percent-encoded` });
  }
}

function tooLarge(path: string, size: number): EngineError {
  return new EngineError('BAD_ARGUMENT', `${path.slice(0, 80)} is ${size} bytes, more than the ${FILE_RESOURCE_MAX_BYTES} bytes a resource read returns`, {
    hint: `read part of it with the run tool, e.g. argv ["head", "-c", "65536", "${path.slice(0, 80)}"]`,
  });
}

/** UTF-8 without NUL bytes is text; anything else comes back as base64. */
function asText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
