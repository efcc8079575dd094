import type * as MimeTypes from 'mime-types';

/**
 * Where skills need another type than mime-db gives: `.ts` is not an MPEG stream, nor `.rs` an RLS
 * services list; YAML's registered type is application/yaml (RFC 9512); and scripts are text, so
 * that hosts get them as text rather than base64. The rest of the table is mime-db's.
 */
const SKILL_TYPES = new Map([
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  ['cjs', 'text/javascript'],
  ['ts', 'text/x-typescript'],
  ['mts', 'text/x-typescript'],
  ['cts', 'text/x-typescript'],
  ['py', 'text/x-python'],
  ['sh', 'text/x-shellscript'],
  ['rb', 'text/x-ruby'],
  ['go', 'text/x-go'],
  ['rs', 'text/x-rust'],
  ['java', 'text/x-java'],
]);

/** The MIME type of a skill file by its extension; a file without one, or of an unknown one, is application/octet-stream. */
export function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  if (dot <= path.lastIndexOf('/') + 1) return 'application/octet-stream';
  const extension = path.slice(dot + 1).toLowerCase();
  return SKILL_TYPES.get(extension) ?? (mimeTypes().lookup(extension) || 'application/octet-stream');
}

let loaded: typeof MimeTypes | undefined;

/** mime-types and mime-db's table, loaded by the first skill file served: a server without skills starts without them. */
function mimeTypes(): typeof MimeTypes {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('mime-types') as typeof MimeTypes);
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
