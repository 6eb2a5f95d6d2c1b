// The headspace dashboard (#21): plain DOM, no framework, nothing from the network but this server.
// Everything shown comes from a workspace and is hostile (job output, file names, purposes): the DOM is
// built with createElement and textContent only, never innerHTML, and links are built from ids with
// encodeURIComponent. The server's CSP forbids inline script besides.
'use strict';

const TOKEN_KEY = 'headspace-ui-token';
const LOG_PAGE = 200;
const WORKSPACE_PAGE = 100;
let session = { allowActions: false, exportDir: '' };
/** The timer of the current view's live refresh; a new view clears it. */
let timer = null;
/** Bumped on every navigation: an answer for a view the person has left is dropped. */
let generation = 0;

// The token arrives in the URL's fragment (never sent to a server or a Referer); keep it for this tab only.
(function takeToken() {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, match[1]);
    history.replaceState(null, '', location.pathname + '#/');
  }
})();

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === 'class') node.className = value;
    else if (key === 'href') node.setAttribute('href', value);
    else if (key === 'testid') node.dataset.testid = value;
    else if (key === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function badge(text, kind) {
  return el('span', { class: `badge ${kind || ''}` }, text);
}

function statusBadge(status) {
  return badge(status || 'unknown', `s-${String(status).replace(/[^a-z_]/g, '')}`);
}

function link(kind, id, text) {
  return el('a', { href: `#/${kind}/${encodeURIComponent(id)}` }, text ?? id);
}

function notice(text) {
  document.getElementById('notice').textContent = text || '';
}

async function api(path, init) {
  const token = sessionStorage.getItem(TOKEN_KEY) || '';
  const response = await fetch(path, { ...(init || {}), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = body.error || {};
    throw new Error(`${error.message || response.statusText}${error.hint ? ` (${error.hint})` : ''}`);
  }
  return body;
}

function findingText(finding) {
  return typeof finding === 'string' ? finding : finding.text;
}

function structured(pkg, kind) {
  return pkg.key_findings.filter((f) => typeof f === 'object' && f.kind === kind);
}

function duration(started, finished) {
  if (!started) return '';
  const end = finished ? Date.parse(finished) : Date.now();
  const seconds = (end - Date.parse(started)) / 1000;
  return seconds < 60 ? `${seconds.toFixed(seconds < 10 ? 2 : 1)} s` : `${Math.round(seconds / 60)} min`;
}

function ttlLeft(expiresAt) {
  if (!expiresAt) return 'none';
  const seconds = Math.round((Date.parse(expiresAt) - Date.now()) / 1000);
  if (seconds <= 0) return 'expired';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

function bytes(n) {
  if (typeof n !== 'number') return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function table(headers, rows, testid) {
  return el(
    'table',
    { testid },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', {}, h)),
      ),
    ),
    el('tbody', {}, rows),
  );
}

function list(items, testid) {
  if (items.length === 0) return el('p', { class: 'muted', testid }, '(none)');
  return el(
    'ul',
    { testid },
    items.map((item) => el('li', {}, item)),
  );
}

/** A flat record as "key: value" lines; nested values as JSON text. */
function fields(record) {
  return el(
    'table',
    {},
    el(
      'tbody',
      {},
      Object.entries(record || {}).map(([key, value]) =>
        el('tr', {}, el('th', {}, key), el('td', {}, typeof value === 'object' ? JSON.stringify(value) : String(value))),
      ),
    ),
  );
}

function policyTable(summary) {
  return table(
    ['limit', 'value', 'label', 'by'],
    (summary || []).map((limit) =>
      el('tr', {}, el('td', {}, limit.name), el('td', {}, limit.value), el('td', {}, badge(limit.label, `l-${limit.label}`)), el('td', {}, limit.by || '')),
    ),
    'policy',
  );
}

function artifactTable(pkg, workspaceId) {
  return table(
    ['name', 'purpose', 'digest', 'size', 'exported to', ''],
    pkg.artifacts.map((a) =>
      el(
        'tr',
        {},
        el('td', { testid: 'artifact-name' }, a.name),
        el('td', { testid: 'artifact-purpose' }, a.purpose),
        el('td', {}, a.digest || 'not exported'),
        el('td', {}, bytes(a.size_bytes)),
        el('td', {}, a.reference || ''),
        el('td', {}, session.allowActions && workspaceId && !a.digest ? el('button', { onclick: () => exportArtifact(workspaceId, a.name) }, 'export…') : ''),
      ),
    ),
    'artifacts',
  );
}

/** The nine sections of a result package, in order, as text. */
function resultPackage(pkg) {
  const evidence = pkg.evidence.map((e) =>
    el(
      'div',
      {},
      el('h4', {}, `${e.label}${e.source ? ` (${e.source})` : ''}`),
      e.excerpt !== undefined ? el('pre', { testid: 'evidence-excerpt' }, e.excerpt) : fields(e),
      e.truncated ? el('p', { class: 'muted' }, `excerpt: ${e.omitted_lines ?? '?'} of ${e.total_lines ?? '?'} lines omitted; the log below has them all`) : '',
    ),
  );
  return el(
    'div',
    { testid: 'result-package' },
    el('h3', {}, 'Outcome summary'),
    el('p', { testid: 'outcome' }, pkg.outcome_summary),
    el('h3', {}, 'Status'),
    el('p', {}, statusBadge(pkg.status)),
    el('h3', {}, 'Key findings'),
    list(pkg.key_findings.map(findingText), 'findings'),
    el('h3', {}, 'Evidence'),
    evidence.length ? evidence : el('p', { class: 'muted' }, '(none)'),
    el('h3', {}, 'Artifacts'),
    artifactTable(pkg, pkg.provenance.workspace_id),
    el('h3', {}, 'Warnings'),
    list(pkg.warnings, 'warnings'),
    el('h3', {}, 'Resource usage'),
    usageChart(pkg.resource_usage, pkg.provenance.policy_summary),
    el('h3', {}, 'Provenance'),
    fields(pkg.provenance),
    el('h3', {}, 'Attention'),
    list(pkg.attention.map(findingText), 'attention'),
  );
}

/** Resource figures with a bar against the budget where the policy names one. */
function usageChart(usage, policy) {
  const budgetOf = (name) => {
    const limit = (policy || []).find((l) => l.name === name);
    const match = limit && /^([\d.]+) (MiB|GiB|s)/.exec(limit.value);
    if (!match) return null;
    const n = Number(match[1]);
    return match[2] === 'GiB' ? n * 1024 ** 3 : match[2] === 'MiB' ? n * 1024 ** 2 : n;
  };
  const budgets = { max_memory_bytes: budgetOf('memory'), storage_bytes: budgetOf('storage'), wall_time_seconds: budgetOf('wall_clock') };
  return table(
    ['figure', 'value', 'of budget'],
    Object.entries(usage || {}).map(([name, value]) => {
      const budget = budgets[name];
      const share = typeof value === 'number' && budget ? Math.min(1, value / budget) : null;
      return el(
        'tr',
        {},
        el('td', {}, name),
        el('td', {}, value === null || value === undefined ? '—' : name.endsWith('_bytes') ? bytes(value) : String(value)),
        el('td', {}, share === null ? '' : [bar(share), ` ${(share * 100).toFixed(1)} %`]),
      );
    }),
    'usage',
  );
}

/** Set through the CSSOM: the CSP refuses style attributes. */
function bar(share) {
  const node = el('span', { class: 'bar' });
  node.style.width = `${Math.max(1, Math.round(share * 120))}px`;
  return node;
}

async function confirmAndPost(question, path, body) {
  if (!window.confirm(question)) return null;
  try {
    const pkg = await api(path, { method: 'POST', body: JSON.stringify(body) });
    notice(`${pkg.status}: ${pkg.outcome_summary}`);
    return pkg;
  } catch (error) {
    notice(`refused: ${error.message}`);
    return null;
  }
}

async function stopJob(workspaceId, jobId) {
  await confirmAndPost(`Stop job ${jobId}? It ends as cancelled.`, '/api/actions/stop', { workspaceId, jobId });
  route();
}

async function destroyWorkspace(workspaceId) {
  const pkg = await confirmAndPost(`Destroy workspace ${workspaceId} and everything in it? This cannot be undone.`, '/api/actions/destroy', { workspaceId });
  if (pkg && pkg.status === 'success') location.hash = '#/';
  else route();
}

async function exportArtifact(workspaceId, name) {
  const base = name
    .split('/')
    .pop()
    .replace(/[^A-Za-z0-9._-]/g, '_');
  const to = window.prompt(`Export ${name} to this host path:`, `${session.exportDir}/${workspaceId}-${base}`);
  if (!to) return;
  await confirmAndPost(`Export ${name} from ${workspaceId} to ${to}?`, '/api/actions/export', { workspaceId, name, to });
  route();
}

// ---- views ----

async function workspacesView(view, gen, params) {
  const offset = Number(params.get('offset') || 0);
  const all = params.get('all') === '1';
  const page = await api(`/api/workspaces?offset=${offset}&limit=${WORKSPACE_PAGE}${all ? '&all=1' : ''}`);
  if (gen !== generation) return;
  const rows = page.rows.map((w) =>
    el(
      'tr',
      { testid: 'workspace-row' },
      el('td', {}, link('ws', w.id)),
      el('td', {}, statusBadge(w.state)),
      el('td', {}, w.provider),
      el('td', {}, w.profile || ''),
      el('td', { testid: 'workspace-purpose' }, w.purpose || ''),
      el('td', {}, w.owner || ''),
      el('td', { testid: 'workspace-network' }, networkCell(w.policy)),
      el('td', { testid: 'workspace-secrets', title: 'secrets at egress need a network allow-list' }, w.secrets_at_egress ? 'at egress' : '—'),
      el('td', { testid: 'workspace-limits' }, limitCounts(w.policy)),
      storageCell(w.id),
      el('td', {}, ttlLeft(w.expires_at)),
      el('td', {}, w.created_at || ''),
    ),
  );
  const pageLink = (to, text) => el('a', { href: `#/?offset=${to}${all ? '&all=1' : ''}` }, text);
  view.replaceChildren(
    el('h2', {}, 'Workspaces'),
    el(
      'div',
      { class: 'row' },
      el('span', { testid: 'workspace-count' }, page.total === 0 ? 'no workspaces' : `${page.offset + 1}–${page.offset + page.rows.length} of ${page.total}`),
      page.offset > 0 ? pageLink(Math.max(0, page.offset - WORKSPACE_PAGE), '← previous') : '',
      page.offset + page.rows.length < page.total ? pageLink(page.offset + WORKSPACE_PAGE, 'next →') : '',
      el('a', { href: all ? '#/' : '#/?all=1' }, all ? 'hide destroyed' : 'show destroyed'),
    ),
    table(
      ['workspace', 'state', 'provider', 'profile', 'purpose', 'owner', 'network', 'secrets', 'limits', 'storage', 'TTL left', 'created'],
      rows,
      'workspaces',
    ),
    page.attention.length ? [el('h3', {}, 'Attention'), list(page.attention.map(findingText))] : '',
  );
  timer = setTimeout(route, 5000);
  await fillStorage(
    gen,
    page.rows.map((w) => w.id),
  );
}

/** The network limit's value (shortened; whole in its tooltip) and its label, as the workspace view shows it. */
function networkCell(policy) {
  const network = (policy || []).find((l) => l.name === 'network');
  if (!network) return '';
  const value = network.value.length > 36 ? `${network.value.slice(0, 35)}…` : network.value;
  return el('span', { title: network.value }, value, ' ', labelBadge(network.label));
}

/** How many limits are enforced, measured or simulated: the workspace view's table in one cell. */
function limitCounts(policy) {
  const counts = new Map();
  for (const limit of policy || []) counts.set(limit.label, (counts.get(limit.label) || 0) + 1);
  const title = (policy || []).map((l) => `${l.name}: ${l.value} (${l.label})`).join('\n');
  return el(
    'span',
    { title },
    [...counts].map(([label, n]) => labelBadge(label, `${n} ${label}`)),
  );
}

function labelBadge(label, text) {
  return badge(text ?? label, `l-${String(label).replace(/[^a-z_]/g, '')}`);
}

/** Storage is measured by each workspace's provider: asked once the rows are shown, kept a while, so the list paints first. */
const storageCache = new Map();
const STORAGE_FRESH_MS = 15000;

function storageCell(id) {
  const known = storageCache.get(id);
  return el('td', { testid: 'workspace-storage', 'data-ws': id }, known ? storageText(known.bytes) : '…');
}

function storageText(value) {
  return value === null ? 'unknown' : bytes(value);
}

async function fillStorage(gen, ids) {
  const stale = ids.filter((id) => !storageCache.has(id) || Date.now() - storageCache.get(id).at > STORAGE_FRESH_MS);
  if (stale.length > 0) {
    try {
      for (const row of await api(`/api/workspace-storage?ids=${stale.map(encodeURIComponent).join(',')}`))
        storageCache.set(row.id, { bytes: row.storage_bytes, at: Date.now() });
    } catch {
      return; // the cells keep their '…'; the next refresh asks again
    }
  }
  if (gen !== generation) return;
  for (const cell of document.querySelectorAll('[data-testid="workspace-storage"]')) {
    const known = storageCache.get(cell.dataset.ws);
    if (known) cell.textContent = storageText(known.bytes);
  }
}

async function workspaceView(view, gen, id) {
  const pkg = await api(`/api/workspace?id=${encodeURIComponent(id)}`);
  if (gen !== generation) return;
  const jobs = structured(pkg, 'job');
  const running = jobs.some((j) => j.status === 'running');
  const other = pkg.key_findings.filter((f) => typeof f === 'string' || f.kind !== 'job');
  view.replaceChildren(
    el('h2', {}, 'Workspace ', el('span', { testid: 'workspace-id' }, id)),
    el('p', { testid: 'outcome' }, pkg.outcome_summary),
    session.allowActions
      ? el('div', { class: 'row' }, el('button', { class: 'danger', testid: 'destroy', onclick: () => destroyWorkspace(id) }, 'destroy…'))
      : '',
    el(
      'div',
      { class: 'grid' },
      el('div', {}, el('h3', {}, 'Findings'), list(other.map(findingText), 'findings')),
      el('div', {}, el('h3', {}, 'Policy'), policyTable(pkg.provenance.policy_summary)),
    ),
    el('h3', {}, `Jobs (${jobs.length})`),
    table(
      ['job', 'status', 'exit', 'duration', 'command', ''],
      jobs.map((j) =>
        el(
          'tr',
          { testid: 'job-row' },
          el('td', {}, link('job', j.id)),
          el('td', {}, statusBadge(j.status)),
          el('td', {}, j.exit_code ?? ''),
          el('td', {}, duration(j.started_at, j.finished_at)),
          el('td', { testid: 'job-command' }, (j.command || []).join(' ')),
          el('td', {}, session.allowActions && j.status === 'running' ? el('button', { onclick: () => stopJob(id, j.id) }, 'stop…') : ''),
        ),
      ),
      'jobs',
    ),
    el('h3', {}, 'Artifacts'),
    artifactTable(pkg, id),
    el('h3', {}, 'Inputs'),
    list(
      (pkg.provenance.inputs || []).map((i) => (typeof i === 'object' ? JSON.stringify(i) : String(i))),
      'inputs',
    ),
    el('h3', {}, 'Resource usage'),
    usageChart(pkg.resource_usage, pkg.provenance.policy_summary),
    el('h3', {}, 'Watch samples'),
    el('div', { id: 'samples' }),
    el('h3', {}, 'Warnings'),
    list(pkg.warnings, 'warnings'),
    el('h3', {}, 'Attention'),
    list(pkg.attention.map(findingText), 'attention'),
  );
  await showSamples(gen, id);
  timer = setTimeout(route, running ? 1000 : 5000);
}

/** The job view keeps its log panel across live refreshes: only the package part is redrawn. */
const logState = { jobId: null, grep: '', next: 1, lastLine: 0, searching: false };

async function jobView(view, gen, id) {
  const pkg = await api(`/api/job?id=${encodeURIComponent(id)}`);
  if (gen !== generation) return;
  const running = pkg.status === 'running';
  let panel = document.getElementById('log-panel');
  if (logState.jobId !== id || !panel) {
    Object.assign(logState, { jobId: id, grep: '', next: 1, lastLine: 0, searching: false });
    panel = logPanel(id);
    view.replaceChildren(
      el('h2', {}, 'Job ', el('span', { testid: 'job-id' }, id)),
      el('p', {}, 'workspace ', link('ws', pkg.provenance.workspace_id)),
      el('div', { id: 'job-actions', class: 'row' }),
      el('div', { id: 'job-package' }),
      el('h3', {}, 'Watch samples'),
      el('div', { id: 'samples' }),
      el('h3', {}, 'Log'),
      panel,
    );
    await loadLog(gen, true);
  } else if (!logState.searching) {
    await loadLog(gen, false); // follow: append what the job wrote since
  }
  if (gen !== generation) return;
  // The package and the actions row (status, stop, the live marker) change together: rendered either side of the
  // samples' fetch, the page showed a cancelled outcome beside "live: following the output" for that long.
  document.getElementById('job-package').replaceChildren(resultPackage(pkg));
  document
    .getElementById('job-actions')
    .replaceChildren(
      statusBadge(pkg.status),
      running && session.allowActions ? el('button', { testid: 'stop', onclick: () => stopJob(pkg.provenance.workspace_id, id) }, 'stop…') : '',
      running ? el('span', { class: 'muted', testid: 'live' }, 'live: following the output') : '',
    );
  await showSamples(gen, id);
  if (gen !== generation) return;
  if (running) timer = setTimeout(route, 1000);
}

function logPanel(jobId) {
  const input = el('input', { type: 'text', placeholder: 'search (RE2 regular expression)', testid: 'log-search' });
  const search = () => {
    logState.grep = input.value;
    logState.searching = input.value !== '';
    logState.next = 1;
    logState.lastLine = 0;
    document.getElementById('log-lines').replaceChildren();
    loadLog(generation, true);
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') search();
  });
  return el(
    'div',
    { id: 'log-panel', 'data-job': jobId },
    el(
      'div',
      { class: 'row' },
      input,
      el('button', { testid: 'log-search-go', onclick: search }, 'search'),
      el(
        'button',
        {
          onclick: () => {
            input.value = '';
            search();
          },
        },
        'clear',
      ),
      el('span', { class: 'muted', testid: 'log-status' }),
    ),
    el('div', { class: 'log', id: 'log-lines', testid: 'log-lines' }),
    el('div', { class: 'row' }, el('button', { id: 'log-more', testid: 'log-more', onclick: () => loadLog(generation, true) }, 'next page')),
  );
}

/** One page of the log (or of the search's matches) appended; `explicit`: asked for, not the live follow. */
async function loadLog(gen, explicit) {
  const from = logState.searching || explicit ? logState.next : logState.lastLine + 1;
  const grep = logState.searching ? `&grep=${encodeURIComponent(logState.grep)}` : '';
  let page;
  try {
    page = await api(`/api/log?job=${encodeURIComponent(logState.jobId)}&from=${from}&count=${LOG_PAGE}${grep}`);
  } catch (error) {
    document.querySelector('[data-testid="log-status"]').textContent = error.message;
    return;
  }
  if (gen !== generation) return;
  const box = document.getElementById('log-lines');
  for (const line of page.lines) {
    if (!logState.searching && line.n <= logState.lastLine) continue;
    box.append(el('div', { testid: 'log-line' }, el('span', { class: 'n' }, String(line.n)), line.text));
    if (!logState.searching) logState.lastLine = line.n;
  }
  if (page.next !== null) logState.next = page.next;
  else if (!logState.searching) logState.next = logState.lastLine + 1;
  const shown = box.childElementCount;
  document.querySelector('[data-testid="log-status"]').textContent = logState.searching
    ? `${shown} match(es) shown${page.next !== null ? ', more on the next page' : ''} (log: ${page.total} lines)`
    : `${shown} of ${page.total} line(s) shown`;
  document.getElementById('log-more').hidden = page.next === null;
}

const SVG = 'http://www.w3.org/2000/svg';
/** The figures a watch sample carries, each drawn as a small line over the samples, with its range as text beside it. */
const FIGURES = [
  ['memory_bytes', 'memory', bytes],
  ['cpu_seconds', 'cpu', (v) => `${v.toFixed(1)} s`],
  ['pids', 'pids', String],
  ['storage_bytes', 'storage', bytes],
  ['output_bytes', 'output', bytes],
];

/** A job's or a workspace's recorded `watch` samples: a small chart per figure, its range in words, and every sample as text. */
async function showSamples(gen, id) {
  let data;
  try {
    data = await api(`/api/samples?id=${encodeURIComponent(id)}`);
  } catch (error) {
    data = { error: error.message };
  }
  const box = document.getElementById('samples');
  if (gen !== generation || !box) return;
  if (data.error) return void box.replaceChildren(el('p', { class: 'muted' }, `could not read the samples: ${data.error}`));
  if (data.samples.length === 0)
    return void box.replaceChildren(
      el('p', { class: 'muted', testid: 'no-samples' }, `no watch samples recorded: \`headspace watch ${id} --for 60\` records some while it runs`),
    );
  const rows = FIGURES.map(([key, name, show]) => {
    const points = data.samples.map((s) => s[key]).filter((v) => typeof v === 'number');
    if (points.length === 0) return el('tr', {}, el('td', {}, name), el('td', {}), el('td', { class: 'muted' }, 'not measured'));
    const [lo, hi, last] = [Math.min(...points), Math.max(...points), points[points.length - 1]];
    const words = `${lo === hi ? show(hi) : `${show(lo)} – ${show(hi)}`}, last ${show(last)}`;
    return el(
      'tr',
      { testid: 'sample-figure' },
      el('td', {}, name),
      el('td', {}, sparkline(points, `${name}: ${words}`)),
      el('td', { testid: 'sample-range' }, words),
    );
  });
  const first = data.samples[0];
  const last = data.samples[data.samples.length - 1];
  box.replaceChildren(
    el(
      'p',
      { testid: 'samples-summary' },
      `${data.samples.length} sample(s)${data.total > data.samples.length ? ` (the newest of ${data.total})` : ''} from ${data.watches} watch(es), ${first.at} → ${last.at}`,
    ),
    table(['figure', 'over the samples', 'range'], rows, 'samples'),
    el(
      'details',
      {},
      el('summary', {}, 'every sample as text'),
      table(
        ['at', 'state', ...FIGURES.map((f) => f[1])],
        data.samples.map((sample) =>
          el(
            'tr',
            { testid: 'sample-row' },
            el('td', {}, sample.at),
            el('td', {}, sample.state),
            FIGURES.map(([key, , show]) => el('td', {}, typeof sample[key] === 'number' ? show(sample[key]) : '—')),
          ),
        ),
        'sample-table',
      ),
    ),
  );
}

/** A line through the values, built as SVG elements (never markup); its label says the same in words for a screen reader. */
function sparkline(values, label) {
  const [w, h] = [180, 28];
  const lo = Math.min(...values);
  const span = Math.max(...values) - lo || 1;
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const svg = document.createElementNS(SVG, 'svg');
  for (const [key, value] of [
    ['viewBox', `0 0 ${w} ${h}`],
    ['width', String(w)],
    ['height', String(h)],
    ['role', 'img'],
    ['aria-label', label],
    ['class', 'spark'],
  ])
    svg.setAttribute(key, value);
  svg.dataset.testid = 'sparkline';
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', values.map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - ((v - lo) / span) * (h - 4)).toFixed(1)}`).join(' '));
  svg.append(line);
  return svg;
}

async function batchesView(view, gen) {
  const page = await api('/api/batches');
  if (gen !== generation) return;
  const running = page.batches.some((b) => b.state === 'running');
  view.replaceChildren(
    el('h2', {}, 'Batches'),
    el('p', { testid: 'batch-count' }, page.total === 0 ? 'no batches' : `${page.batches.length} of ${page.total}, newest first`),
    table(
      ['batch', 'strategy', 'jobs', 'outcome', 'created', 'summary'],
      page.batches.map((b) =>
        el(
          'tr',
          { testid: 'batch-row' },
          el('td', {}, link('batch', b.id)),
          el('td', {}, b.strategy + (b.quorum ? ` (${b.quorum})` : '')),
          el('td', {}, String(b.members)),
          el('td', {}, statusBadge(b.status || b.state)),
          el('td', {}, b.created_at),
          el('td', { testid: 'batch-summary' }, b.summary || ''),
        ),
      ),
      'batches',
    ),
  );
  timer = setTimeout(route, running ? 2000 : 10000);
}

async function batchView(view, gen, id) {
  const pkg = await api(`/api/batch?id=${encodeURIComponent(id)}`);
  if (gen !== generation) return;
  const group = structured(pkg, 'batch')[0] || {};
  const members = structured(pkg, 'job');
  const cleanup = structured(pkg, 'cleanup')[0];
  view.replaceChildren(
    el('h2', {}, 'Batch ', el('span', { testid: 'batch-id' }, id)),
    el('p', { testid: 'outcome' }, pkg.outcome_summary),
    el(
      'p',
      {},
      'strategy ',
      el('strong', { testid: 'batch-strategy' }, `${group.strategy || '?'}${group.quorum ? ` (quorum ${group.quorum})` : ''}`),
      ' · outcome ',
      statusBadge(pkg.status),
    ),
    el('h3', {}, `Jobs (${members.length})`),
    table(
      ['name', 'role', 'status', 'exit', 'job', 'workspace', 'command'],
      members.map((m) =>
        el(
          'tr',
          { testid: 'member-row' },
          el('td', { testid: 'member-name' }, m.name || ''),
          el('td', {}, m.role || ''),
          el('td', {}, statusBadge(m.status)),
          el('td', {}, m.exit_code ?? ''),
          el('td', {}, m.job_id ? link('job', m.job_id) : 'not started'),
          el('td', {}, m.workspace_id ? link('ws', m.workspace_id) : m.fork_of ? ['fork of ', link('ws', m.fork_of)] : ''),
          el('td', { testid: 'member-command' }, (m.command || []).join(' ')),
        ),
      ),
      'members',
    ),
    cleanup ? el('p', { testid: 'cleanup' }, cleanup.text) : '',
    el('details', {}, el('summary', {}, 'the whole result package'), resultPackage(pkg)),
  );
  if (pkg.status === 'running') timer = setTimeout(route, 2000);
}

/** The last `probe --all` this home ran, as it was recorded: when, on which provider, by which build. */
async function probeLast(gen) {
  const box = el('div', { testid: 'probe-last' }, el('p', { class: 'muted' }, 'reading…'));
  api('/api/probe-last').then(
    ({ last }) => {
      if (gen !== generation) return;
      if (!last)
        return void box.replaceChildren(el('p', { class: 'muted' }, 'no `probe --all` has run on this home: `headspace probe --all` records its report here'));
      box.replaceChildren(
        fields({ recorded: last.recorded_at, provider: last.provider, build: last.build }),
        el('p', {}, statusBadge(last.status), ' ', el('span', { testid: 'probe-last-outcome' }, last.report.outcome_summary)),
        el('details', {}, el('summary', {}, 'the whole report'), resultPackage(last.report)),
      );
    },
    (error) => box.replaceChildren(el('p', {}, `could not read it: ${error.message}`)),
  );
  return box;
}

async function systemView(view, gen) {
  const out = el('div', { testid: 'system-report' });
  const show = (path) => async () => {
    out.replaceChildren(el('p', { class: 'muted' }, 'running…'));
    try {
      const pkg = await api(path);
      if (gen === generation) out.replaceChildren(resultPackage(pkg));
    } catch (error) {
      out.replaceChildren(el('p', {}, `refused: ${error.message}`));
    }
  };
  view.replaceChildren(
    el('h2', {}, 'System'),
    el(
      'div',
      { class: 'row' },
      el('button', { onclick: show('/api/doctor') }, 'doctor'),
      el('button', { onclick: show('/api/probe-scenarios') }, 'probe scenarios'),
      el('button', { onclick: show('/api/subscriptions') }, 'event subscriptions'),
    ),
    out,
    el('h3', {}, 'Last probe --all'),
    await probeLast(gen),
  );
}

async function route() {
  clearTimeout(timer);
  const gen = ++generation;
  const view = document.getElementById('view');
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    if (parts[0] === 'ws' && parts[1]) await workspaceView(view, gen, parts[1]);
    else if (parts[0] === 'job' && parts[1]) await jobView(view, gen, parts[1]);
    else if (parts[0] === 'system') await systemView(view, gen);
    else if (parts[0] === 'batches') await batchesView(view, gen);
    else if (parts[0] === 'batch' && parts[1]) await batchView(view, gen, parts[1]);
    else await workspacesView(view, gen, new URLSearchParams(query || ''));
  } catch (error) {
    if (gen === generation) view.replaceChildren(el('p', { testid: 'error' }, `could not load: ${error.message}`));
  }
}

window.addEventListener('hashchange', () => {
  logState.jobId = null;
  notice('');
  route();
});

(async function start() {
  try {
    session = await api('/api/session');
  } catch (error) {
    document.getElementById('view').replaceChildren(el('p', { testid: 'error' }, `${error.message}`));
    return;
  }
  const mode = document.getElementById('mode');
  mode.textContent = session.allowActions ? 'actions on' : 'read-only';
  route();
})();
