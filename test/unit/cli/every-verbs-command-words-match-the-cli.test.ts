/**
 * Every verb's command words as core spells them for a face that cannot run
 * the verb itself (core/verb-table/command-words.ts, used by MCP's operator
 * suggestions) are exactly the words the CLI parses: a two-word verb such as
 * `batch cancel` is never named `batch-cancel`, and a new two-word group
 * cannot drift from the CLI unnoticed.
 */
import { describe, expect, it } from 'vitest';
import { VERBS } from '../../../src/cli/catalog.js';
import type { EngineVerbSpec } from '../../../src/cli/verb-commands.js';
import { commandWords } from '../../../src/core/verb-table/command-words.js';

describe("each verb's command words", () => {
  it("are the CLI's spelling of the verb", () => {
    const engineVerbs = VERBS.filter((v): v is EngineVerbSpec => 'tableName' in v);
    expect(engineVerbs.length).toBeGreaterThan(30);
    for (const verb of engineVerbs) expect(commandWords(verb.tableName), verb.tableName).toBe(verb.name);
  });
});
