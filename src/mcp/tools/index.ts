/**
 * Every tool the MCP server offers, in listing order. Adding a tool is one
 * entry here (and one in the pinned list of
 * test/e2e/mcp/tool-names-and-input-schemas-are-pinned.test.ts).
 */
import { FILE_TOOLS, OPERATOR_TOOLS } from './file-tools.js';
import { LIFECYCLE_TOOLS } from './lifecycle-tools.js';
import type { ToolSpec } from './tool-spec.js';

export const TOOLS: readonly ToolSpec[] = [...LIFECYCLE_TOOLS, ...FILE_TOOLS, ...OPERATOR_TOOLS];
