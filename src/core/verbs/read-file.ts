import { EngineError } from '../errors.js';
import type { EngineContext } from '../context.js';
import { requireLiveWorkspace } from './workspace-guards.js';

export interface ReadFileInput {
  workspaceId: string;
  /** Relative to the workspace root, in the names' text form. */
  path: string;
  /** A larger file is refused whole, never cut silently. */
  maxBytes: number;
}

export interface FileBytes {
  path: string;
  bytes: Buffer;
}

/**
 * A workspace file read whole and bounded, for a face that shows files (MCP
 * resources). The bytes come through the provider's own `read`, which refuses
 * symlinks, directories and special files and never leaves the workspace (the
 * rules export follows); a face never reaches the provider itself (#11).
 */
export async function readWorkspaceFile(ctx: EngineContext, input: ReadFileInput): Promise<FileBytes> {
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const provider = await ctx.provider(ws.provider);
  const stream = await provider.read(ws.id, input.path);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    if (stream.size > input.maxBytes) throw tooLarge(input.path, stream.size, input.maxBytes);
    for await (const chunk of stream.chunks) {
      total += chunk.length;
      if (total > input.maxBytes) throw tooLarge(input.path, total, input.maxBytes); // grew while we read
      chunks.push(chunk);
    }
  } finally {
    await stream.close();
  }
  return { path: input.path, bytes: Buffer.concat(chunks) };
}

function tooLarge(path: string, size: number, max: number): EngineError {
  return new EngineError('BAD_ARGUMENT', `${path.slice(0, 80)} is ${size} bytes, more than the ${max} bytes a whole read returns`, {
    hint: `read part of it with a run of head -c 65536 ${path.slice(0, 80)}`,
  });
}
