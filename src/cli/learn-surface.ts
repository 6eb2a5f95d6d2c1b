/**
 * The CLI's learn surface (core/learn.ts): the workflow as shell commands
 * and the rules that name its flags. It lives with the CLI, which is the one
 * face whose syntax it is; the MCP server passes its tool calls instead.
 */
import type { LearnSurface } from '../core/learn.js';

export const CLI_LEARN_SURFACE: LearnSurface = {
  workflow: [
    'headspace create --purpose "…"            → a workspace id (closed policy: no network, 512 MiB, 1 CPU, 128 pids, 300 s)',
    'headspace run <workspace> <command…>     → a bounded result: status, key findings, an excerpt of the output chosen for you',
    "headspace run --verify 'python3 -m pytest -q' --expect-file out.json <workspace> <command…>   → success only when every check passes (6 when one fails, 9 when one cannot run)",
    'headspace logs <job> --grep REGEX | --tail N | --lines A:B   → drill into the output without loading it all',
    'headspace inspect <job> --logs           → everything the job printed (only when you really need it)',
    'headspace status [workspace]             → where you are: the workspace and its latest job, in a few lines',
    'headspace run --declare out.json=why <workspace> <command…>, then headspace export <workspace> out.json --to ./out.json   → bring a result out, digest-verified',
    'headspace run --detach <workspace> <command…>, then headspace wait <job>   → a long job without blocking: wait returns the result run would have',
    'headspace stop <workspace> --apply       → end a running job (from any process)',
    'headspace destroy <workspace>            → remove it',
  ],
  rules: ['Add --json for the same result as one JSON document.'],
};
