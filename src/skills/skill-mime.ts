/** MIME types of the files skills usually hold, by extension; anything else is application/octet-stream. */
const TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

export function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  const slash = path.lastIndexOf('/');
  if (dot <= slash + 1) return path.endsWith('/SKILL.md') || path === 'SKILL.md' ? 'text/markdown' : 'application/octet-stream';
  return TYPES[path.slice(dot + 1).toLowerCase()] ?? 'application/octet-stream';
}

const TEXT_APPLICATION = new Set([
  'application/json',
  'application/yaml',
  'application/xml',
  'application/toml',
  'application/sql',
  'image/svg+xml',
]);

/** True when files of this type are sent as text (when their bytes are UTF-8), else as a base64 blob. */
export function isTextType(mimeType: string): boolean {
  return mimeType.startsWith('text/') || TEXT_APPLICATION.has(mimeType);
}
