import { CliError } from '../../../src/cli/cli-error';
import { parseProxyArgs, splitCommandLine } from '../../../src/cli/proxy-args';

const usageError = (args: string[]) => {
  try {
    parseProxyArgs(args, {});
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    return (error as CliError).message;
  }
  throw new Error(`no error for ${args.join(' ')}`);
};

describe('mcpkit proxy arguments', () => {
  it('takes one stdio server after --, unprefixed, served on HTTP 127.0.0.1 (PORT, else 3000)', () => {
    expect(parseProxyArgs(['--', 'npx', '-y', 'server', '--flag'], {})).toEqual({
      upstreams: [{ prefix: '', kind: 'stdio', command: 'npx', args: ['-y', 'server', '--flag'] }],
      front: { stdio: false, host: '127.0.0.1', port: 3000 },
      headers: {},
      era: 'auto',
      name: undefined,
      version: undefined,
    });
    expect(parseProxyArgs(['--', 'x'], { PORT: '8080' }).front).toEqual({ stdio: false, host: '127.0.0.1', port: 8080 });
    expect(parseProxyArgs(['--stdio', '--prefix', 'fs', '--era', 'handshake', '--', 'x'], {})).toMatchObject({
      front: { stdio: true },
      upstreams: [{ prefix: 'fs' }],
      era: 'handshake',
    });
    expect(parseProxyArgs(['--era', 'per-request', '--', 'x'], {}).era).toBe('per-request');
  });

  it('refuses the first spellings of the eras (legacy, modern), which are gone', () => {
    expect(() => parseProxyArgs(['--era', 'legacy', '--', 'x'], {})).toThrow(/--era must be one of/);
    expect(() => parseProxyArgs(['--era', 'modern', '--', 'x'], {})).toThrow(/--era must be one of/);
  });

  it('takes several --upstream <prefix>=<target>, stdio command lines split like a shell, and headers', () => {
    const parsed = parseProxyArgs(
      [
        '--http',
        '0',
        '--host',
        '0.0.0.0',
        '--upstream',
        'files=stdio:npx -y "@scope/server fs" /srv',
        '--upstream',
        'crm=https://crm.example/mcp',
        '--header',
        'Authorization: Bearer a:b',
      ],
      {},
    );
    expect(parsed.upstreams).toEqual([
      { prefix: 'files', kind: 'stdio', command: 'npx', args: ['-y', '@scope/server fs', '/srv'] },
      { prefix: 'crm', kind: 'http', url: 'https://crm.example/mcp' },
    ]);
    expect(parsed.front).toEqual({ stdio: false, host: '0.0.0.0', port: 0 });
    expect(parsed.headers).toEqual({ Authorization: 'Bearer a:b' });
    expect(parseProxyArgs(['--upstream', 'https://one.example/mcp'], {}).upstreams).toEqual([
      { prefix: '', kind: 'http', url: 'https://one.example/mcp' },
    ]);
    expect(parseProxyArgs(['--upstream', 'stdio:server --x'], {}).upstreams).toEqual([
      { prefix: '', kind: 'stdio', command: 'server', args: ['--x'] },
    ]);
    expect(parseProxyArgs(['--upstream', 'https://one.example/mcp', '--prefix', 'one'], {}).upstreams).toEqual([
      { prefix: 'one', kind: 'http', url: 'https://one.example/mcp' },
    ]);
  });

  it('takes sse:<URL> targets for HTTP+SSE (2024-11-05) servers', () => {
    expect(parseProxyArgs(['--upstream', 'sse:https://old.example/sse'], {}).upstreams).toEqual([
      { prefix: '', kind: 'sse', url: 'https://old.example/sse' },
    ]);
    expect(
      parseProxyArgs(['--upstream', 'old=sse:http://127.0.0.1:9/sse', '--upstream', 'new=https://new.example/mcp'], {}).upstreams,
    ).toEqual([
      { prefix: 'old', kind: 'sse', url: 'http://127.0.0.1:9/sse' },
      { prefix: 'new', kind: 'http', url: 'https://new.example/mcp' },
    ]);
    expect(usageError(['--upstream', 'sse:ftp://x'])).toContain('sse: takes an http(s):// URL');
    expect(usageError(['--upstream', 'sse:'])).toContain('sse: takes an http(s):// URL');
    expect(usageError(['--upstream', 'sse:https://[bad/sse'])).toContain('not a valid URL');
  });

  it('splits command lines with quotes and escapes', () => {
    expect(splitCommandLine(` a  'b c' "d \\"e\\"" f\\ g '' `)).toEqual(['a', 'b c', 'd "e"', 'f g', '']);
    expect(() => splitCommandLine('a "b')).toThrow(/unclosed "/);
  });

  it('refuses mistakes as usage errors naming them', () => {
    expect(usageError([])).toContain('no server to proxy');
    expect(usageError(['--'])).toContain('nothing after --');
    expect(usageError(['--upstream', 'https://a/mcp', '--upstream', 'https://b/mcp'])).toContain('needs a prefix');
    expect(usageError(['--upstream', 'a=https://a/mcp', '--', 'x'])).toContain('not after --');
    expect(usageError(['--upstream', 'a=https://a/mcp', '--upstream', 'a=stdio:x'])).toContain('two servers under the prefix "a"');
    expect(usageError(['--prefix', 'p', '--upstream', 'a=https://a/mcp', '--upstream', 'b=stdio:x'])).toContain(
      '--prefix is for a single server',
    );
    expect(usageError(['--upstream', 'a=ftp://x'])).toContain('stdio:<command>, an http(s):// URL or sse:<http(s):// URL>');
    expect(usageError(['--http', 'abc', '--', 'x'])).toContain('--http must be a port number');
    expect(usageError(['--era', 'old', '--', 'x'])).toContain('--era must be one of auto, handshake, per-request, got "old"');
    expect(usageError(['--header', 'novalue', '--', 'x'])).toContain('--header must read');
    expect(usageError(['--stdio', '--http', '1', '--', 'x'])).toContain('exclude each other');
    expect(usageError(['--bogus', '--', 'x'])).toMatch(/Unknown option '--bogus'.*mcpkit proxy --help/);
  });
});
