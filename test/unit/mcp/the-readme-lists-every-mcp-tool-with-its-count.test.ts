/**
 * The README's MCP section names the tools a client sees: its "Tools (N)"
 * list is exactly the server's tools, in order, and N is their count (it
 * once said 28 while tools/list returned 30).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../../src/mcp/tools/index.js';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

describe("the README's MCP tool list", () => {
  it('names every tool the server lists, in order, with their count', () => {
    const match = /\*\*Tools\*\* \((\d+)\): ([^]*?)\. Kept off MCP/.exec(README);
    expect(match).not.toBeNull();
    const named = Array.from(match![2]!.matchAll(/`([a-z-]+)`/g), (m) => m[1]);
    expect(named).toEqual(TOOLS.map((tool) => tool.name));
    expect(Number(match![1])).toBe(TOOLS.length);
  });
});
