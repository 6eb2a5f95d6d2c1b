/**
 * Files in and out of a workspace, and the containment probe, as MCP tools.
 * put and export touch the HOST filesystem with the server's own user, as the
 * CLI verbs do; their descriptions say so, so a client can gate them.
 */
import { z } from 'zod';
import { HOST_ROOTS_RULE, RETURNS, defineTool, present, type ToolSpec } from './tool-spec.js';

const workspaceId = () => z.string().describe('the workspace id, as returned by create in provenance.workspace_id');

export const putTool = defineTool({
  name: 'put',
  title: 'Copy a host file into a workspace',
  description: [
    'Copy a file or directory from the HOST (read as the server\'s user) into a workspace, before a run that needs it. The result records the destination, size and sha256 — never the bytes.',
    HOST_ROOTS_RULE,
    'Refused: symlinks, devices, FIFOs and sockets in the source; `..`, absolute or NUL destinations; anything past the storage budget (policy_denied, nothing copied); an existing destination unless overwrite. Cost: proportional to the bytes copied.',
    'To copy inputs and run in one call, use run\'s inputs argument instead.',
    RETURNS,
  ].join(' '),
  input: z.strictObject({
    workspaceId: workspaceId(),
    hostPath: z.string().describe('the host file or directory to copy (absolute, or relative to the server\'s working directory)'),
    destination: z.string().describe('where it lands, relative to the workspace root, e.g. data/input.csv'),
    overwrite: z.boolean().optional().describe('true to replace an existing destination'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  call: async (engine, args, ctx) =>
    engine.put({ workspaceId: args.workspaceId, hostPath: await ctx.hostPaths.readable(args.hostPath), destination: args.destination, ...present({ overwrite: args.overwrite }) }),
});

export const declareTool = defineTool({
  name: 'declare',
  title: 'Declare an artifact',
  description: [
    'Declare a file in a workspace as an artifact (after the fact, e.g. one found with ls-files), so it can be exported. Only declared artifacts can leave a workspace.',
    'A declared artifact that is not exported is listed in attention on every result, and makes destroy refuse until it is exported or discarded with force; remove: true withdraws a declaration that was never exported (a typo; the files are not touched). Cheap.',
    RETURNS,
  ].join(' '),
  input: z.strictObject({
    workspaceId: workspaceId(),
    name: z.string().describe('the artifact\'s path relative to the workspace root, as ls-files shows it, e.g. out/report.json'),
    purpose: z.string().optional().describe('why it matters (required to declare, one line; omitted with remove)'),
    remove: z.boolean().optional().describe('true to withdraw the declaration of name instead (only one never exported)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.declare({ workspaceId: args.workspaceId, name: args.name, ...present({ purpose: args.purpose, remove: args.remove }) }),
});

export const exportTool = defineTool({
  name: 'export',
  title: 'Export an artifact to the host',
  description: [
    'Publish a declared artifact to a HOST path (written as the server\'s user): copied through a temporary file, digest-verified, then renamed into place, so the destination holds the whole file or nothing.',
    HOST_ROOTS_RULE,
    'Refused, leaving nothing behind: an undeclared name, a symlink or special file in the workspace, a digest mismatch with expectSha256, an existing destination unless overwrite. Cost: proportional to the file size. The result carries the sha256 and the destination.',
    RETURNS,
  ].join(' '),
  input: z.strictObject({
    workspaceId: workspaceId(),
    name: z.string().describe('the declared artifact\'s name (its workspace path, as ls-files shows it)'),
    to: z.string().describe('the host path to publish it at'),
    expectSha256: z.string().optional().describe('refuse unless the bytes have this sha256: 64 hex digits, with or without the sha256: prefix results print'),
    overwrite: z.boolean().optional().describe('true to replace an existing host file'),
    maxBytes: z.int().min(1).max(2 ** 50).optional().describe("refuse (policy_denied) an artifact whose apparent size exceeds this many bytes; default the workspace's storage budget"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  call: async (engine, args, ctx) =>
    engine.export({ workspaceId: args.workspaceId, name: args.name, to: await ctx.hostPaths.writable(args.to), ...present({ expectSha256: args.expectSha256, overwrite: args.overwrite, maxBytes: args.maxBytes }) }),
});

export const lsFilesTool = defineTool({
  name: 'ls-files',
  title: 'List a workspace\'s files',
  description: [
    'A bounded, recursive listing (names, types, sizes) of a workspace\'s files under a path, to find files a job wrote; then declare and export them, or read one as the resource headspace://workspace/{workspaceId}/file/{path}. Symlinks are listed, never followed. Each name is shown in one text form (a byte that is not UTF-8 as \\xff, a backslash as \\\\, controls and invisible characters as escapes; name_encoding says so): pass it exactly as shown to declare, export or path. Read-only and cheap.',
    RETURNS,
  ].join(' '),
  input: z.strictObject({
    workspaceId: workspaceId(),
    path: z.string().optional().describe('directory relative to the workspace root; default the root'),
    limit: z.int().min(1).max(10_000).optional().describe('at most this many entries (default 200)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.listFiles({ workspaceId: args.workspaceId, ...present({ path: args.path, limit: args.limit }) }),
});

export const probeTool = defineTool({
  name: 'probe',
  title: 'Probe the isolation boundary',
  description: [
    'Run real escape attempts (writing outside the workspace, reaching the host network, privilege, fork bomb, memory hog, …) in a dedicated workspace and report each scenario contained, escaped (with evidence) or skipped. Success only when every scenario is contained; anything else is infrastructure_failure.',
    'Use it to check that a provider really isolates before trusting it. Cost: tens of seconds for all scenarios; it creates and destroys its own workspace. With list: true it only describes the scenarios. The fake provider isolates nothing and is refused (policy_denied).',
    RETURNS,
  ].join(' '),
  input: z.strictObject({
    scenario: z.string().optional().describe('run only this scenario id (see list: true)'),
    all: z.boolean().optional().describe('true to run every scenario'),
    provider: z.string().optional().describe('the provider to probe; default the server\'s default'),
    list: z.boolean().optional().describe('true to describe the scenarios and run nothing'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.probe(present({ scenario: args.scenario, all: args.all, provider: args.provider, list: args.list })),
});

export const FILE_TOOLS: readonly ToolSpec[] = [putTool, declareTool, exportTool, lsFilesTool];
export const OPERATOR_TOOLS: readonly ToolSpec[] = [probeTool];
