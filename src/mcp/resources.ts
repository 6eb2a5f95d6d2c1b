/**
 * A workspace's files as MCP resources, read whole and bounded. The engine
 * reads the bytes (through the provider's own `read`, which refuses symlinks,
 * directories and special files and never leaves the workspace); this module
 * only decodes the URI and picks text or base64.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Engine } from '../core/engine.js';
import { EngineError } from '../core/errors.js';

export const FILE_URI_TEMPLATE = 'headspace://workspace/{workspaceId}/file/{+path}';

/** A resource read returns at most this many bytes; a larger file is refused whole, never cut silently. */
export const FILE_RESOURCE_MAX_BYTES = 256 * 1024;

export async function readWorkspaceFile(engine: Engine, uri: string, workspaceId: string, encodedPath: string): Promise<ReadResourceResult> {
  const { bytes } = await engine.readFile({ workspaceId, path: decodePath(encodedPath), maxBytes: FILE_RESOURCE_MAX_BYTES });
  const text = asText(bytes);
  return {
    contents: [
      text === null ? { uri, mimeType: 'application/octet-stream', blob: bytes.toString('base64') } : { uri, mimeType: 'text/plain; charset=utf-8', text },
    ],
  };
}

function decodePath(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new EngineError('BAD_PATH', 'the file path in the resource URI is not valid percent-encoding', {
      hint: `use ${FILE_URI_TEMPLATE} with the path percent-encoded`,
    });
  }
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
