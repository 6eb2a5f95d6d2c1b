const BY_EXTENSION: Record<string, string> = {
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  py: 'text/x-python',
  ts: 'text/typescript',
  js: 'text/javascript',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  zip: 'application/zip',
};

/** A media type from the file name's extension; application/octet-stream when unknown. */
export function mediaTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot === -1 ? undefined : BY_EXTENSION[name.slice(dot + 1).toLowerCase()]) ?? 'application/octet-stream';
}
