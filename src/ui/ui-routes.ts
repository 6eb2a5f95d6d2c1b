/**
 * What the dashboard's page may ask, each answered by an engine verb or one
 * of the engine's reads (workspaceFacts, watchSamples, lastProbeReport,
 * listBatches): the page never sees the store, a path of the home or a
 * provider. Every route sits behind ui-server.ts's guards. Reads are
 * GET; the three actions are POST and exist only with --allow-actions.
 * Every answer is JSON data; the page renders it as text (never as HTML).
 */
import { EngineError, type Engine, type ResultPackage } from '../api/index.js';
import { LOG_PAGE_LINES, readLogPage } from './log-page.js';

/** Workspaces per page of the list unless the page asks for fewer; the ceiling it may ask for. */
export const WORKSPACE_PAGE = 100;
const WORKSPACE_PAGE_MAX = 500;

export interface RouteContext {
  engine: Engine;
  allowActions: boolean;
  /** Where an export goes unless the person types another host path. */
  exportDir: string;
}

type Query = URLSearchParams;
type Body = Record<string, unknown>;

export const GET_ROUTES: Record<string, (c: RouteContext, q: Query) => Promise<unknown>> = {
  '/api/session': async (c) => ({ allowActions: c.allowActions, exportDir: c.exportDir }),
  '/api/workspaces': (c, q) => workspacePage(c.engine, q),
  '/api/workspace': (c, q) => c.engine.inspect({ handle: required(q, 'id') }),
  '/api/job': (c, q) => c.engine.inspect({ handle: required(q, 'id') }),
  '/api/log': (c, q) =>
    readLogPage(c.engine, {
      jobId: required(q, 'job'),
      from: integer(q, 'from', 1),
      count: integer(q, 'count', LOG_PAGE_LINES),
      ...(q.get('grep') ? { grep: q.get('grep')! } : {}),
    }),
  // Asked by the list once its rows are shown: measuring storage may walk a workspace's files on some providers.
  '/api/workspace-storage': async (c, q) =>
    (await c.engine.workspaceFacts({ ids: idList(q, 'ids'), storage: true })).map((f) => ({ id: f.id, storage_bytes: f.storage_bytes ?? null })),
  '/api/samples': (c, q) => c.engine.watchSamples({ handle: required(q, 'id') }),
  '/api/batches': (c) => c.engine.listBatches({}),
  '/api/batch': (c, q) => c.engine.batchStatus({ groupId: required(q, 'id') }),
  '/api/probe-last': async (c) => ({ last: await c.engine.lastProbeReport() }),
  '/api/doctor': (c) => c.engine.doctor({}),
  '/api/probe-scenarios': (c) => c.engine.probe({ list: true }),
  '/api/subscriptions': (c) => c.engine.listSubscriptions({}),
};

/** Each action through its verb, applied: the page asked the person to confirm before posting. */
export const POST_ROUTES: Record<string, (c: RouteContext, b: Body) => Promise<ResultPackage>> = {
  '/api/actions/stop': (c, b) =>
    c.engine.stop({ workspaceId: text(b, 'workspaceId'), ...(b.jobId === undefined ? {} : { jobId: text(b, 'jobId') }), apply: true }),
  '/api/actions/destroy': (c, b) => c.engine.destroy({ workspaceId: text(b, 'workspaceId') }),
  '/api/actions/export': (c, b) => c.engine.export({ workspaceId: text(b, 'workspaceId'), name: text(b, 'name'), to: text(b, 'to') }),
};

export interface WorkspaceRow {
  id: string;
  state: string;
  provider: string;
  profile?: string;
  purpose?: string;
  owner?: string;
  created_at?: string;
  expires_at?: string;
  expired?: boolean;
  /** Each limit with its label, as the workspace view shows them (engine.workspaceFacts). */
  policy?: unknown[];
  secrets_at_egress?: boolean;
}

/** One page of `ls`: the verb lists from the store alone, the page gets a slice of it. */
async function workspacePage(engine: Engine, q: Query): Promise<{ total: number; offset: number; rows: WorkspaceRow[]; attention: unknown[] }> {
  const pkg = await engine.ls({ all: q.get('all') === '1' });
  const rows = pkg.key_findings.filter((f) => typeof f === 'object' && f.kind === 'workspace');
  const offset = Math.min(integer(q, 'offset', 0, 0), rows.length);
  const limit = Math.min(integer(q, 'limit', WORKSPACE_PAGE), WORKSPACE_PAGE_MAX);
  const page = rows.slice(offset, offset + limit) as unknown as WorkspaceRow[];
  // The page's rows only: labels cost a page, never the whole store (storage comes after, from /api/workspace-storage).
  const facts = new Map((await engine.workspaceFacts({ ids: page.map((r) => r.id) })).map((f) => [f.id, f]));
  const labelled = page.map((r) => ({ ...r, policy: facts.get(r.id)?.policy ?? [], secrets_at_egress: facts.get(r.id)?.secrets_at_egress ?? false }));
  return { total: rows.length, offset, rows: labelled, attention: pkg.attention };
}

/** A comma-separated list of ids, at most a page of the list. */
function idList(q: Query, name: string): string[] {
  const ids = required(q, name).split(',').filter(Boolean);
  if (ids.length > WORKSPACE_PAGE_MAX) throw new EngineError('BAD_ARGUMENT', `at most ${WORKSPACE_PAGE_MAX} ${name} at once`, { hint: 'reload the page' });
  return ids;
}

function required(q: Query, name: string): string {
  const value = q.get(name);
  if (value === null || value === '') throw new EngineError('BAD_ARGUMENT', `the dashboard's request lacks ${name}`, { hint: 'reload the page' });
  return value;
}

function integer(q: Query, name: string, fallback: number, min = 1): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    throw new EngineError('BAD_ARGUMENT', `${name} must be a whole number ≥ ${min}`, { hint: 'reload the page' });
  return value;
}

function text(b: Body, name: string): string {
  const value = b[name];
  if (typeof value !== 'string' || value === '') throw new EngineError('BAD_ARGUMENT', `the action lacks ${name}`, { hint: 'reload the page' });
  return value;
}
