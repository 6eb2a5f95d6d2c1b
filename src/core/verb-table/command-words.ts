/**
 * How a person types a verb at the shell: the verb's name, except for the
 * verb groups the CLI spells in two words (`events claim` for events-claim,
 * `batch cancel` for batch-cancel). A face that cannot run a verb itself (MCP,
 * for the operator's verbs) names the command with this, so it never names a
 * `headspace batch-cancel` that does not exist. The CLI's own spelling is its
 * adapters' `words`; test/unit/cli/every-verbs-command-words-match-the-cli.test.ts
 * keeps the two equal.
 */
const TWO_WORD_GROUPS = ['events', 'batch'] as const;

export function commandWords(verb: string): string {
  const group = TWO_WORD_GROUPS.find((g) => verb.startsWith(`${g}-`));
  return group === undefined ? verb : `${group} ${verb.slice(group.length + 1)}`;
}

// How a face spells a verb's inputs in an error's text (inputRef marks, spelled per face) lives with EngineError, which
// spells them for the library and MCP (errors.ts imports nothing outside its zone); the CLI spells them as its flags.
export { fieldSpelling, inputRef, spellInputs, type SpellInput } from '../errors.js';
