/**
 * Over MCP a suggested call is a tool call the model can make; all of a job's
 * output, which no tool returns unbounded, becomes the logs call that pages
 * through it (#11 item 3).
 */
import { describe, expect, it } from 'vitest';
import { mcpActionRenderer } from '../../../src/mcp/render-action.js';
import { fullOutputOf } from '../../../src/core/next-action.js';

describe('the MCP action renderer', () => {
  it('writes the tool name and its arguments as JSON', () => {
    expect(mcpActionRenderer({ verb: 'destroy', args: { workspaceId: 'w', force: true } })).toBe('destroy {"workspaceId":"w","force":true}');
  });

  it('pages through all of a job output with the logs tool', () => {
    expect(mcpActionRenderer(fullOutputOf('job-1'))).toBe('logs {"jobId":"job-1","lines":{"from":1,"to":200}} (then the next 200 lines)');
  });
});
