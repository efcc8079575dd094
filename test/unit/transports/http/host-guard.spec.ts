import { HostGuard } from '../../../../src/transports/http/host-guard';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

describe('HostGuard', () => {
  describe('Host', () => {
    it('accepts the loopback names with or without a port while the port is unknown', () => {
      const guard = new HostGuard(LOOPBACK, undefined, undefined);
      for (const host of ['localhost', 'LOCALHOST', '127.0.0.1:1234', '[::1]', '[::1]:8080'])
        expect(guard.check(host, undefined)).toBeUndefined();
    });

    it('once the port is known, accepts it (or none) and refuses another', () => {
      const guard = new HostGuard(LOOPBACK, undefined, undefined);
      // Passed while the port was unknown; the verdict kept for the header is forgotten when the port is set.
      expect(guard.check('localhost:3002', undefined)).toBeUndefined();
      guard.setPort(3001);
      expect(guard.check('localhost:3001', undefined)).toBeUndefined();
      expect(guard.check('localhost', undefined)).toBeUndefined();
      expect(guard.check('localhost:3002', undefined)).toMatch(/Host header not allowed: localhost:3002/);
    });

    it('judges each Host header on its own, whichever was checked before (the last verdict is kept)', () => {
      const guard = new HostGuard(LOOPBACK, undefined, 3000);
      for (let i = 0; i < 2; i++) {
        expect(guard.check('localhost:3000', undefined)).toBeUndefined();
        expect(guard.check('evil.example', undefined)).toMatch(/not allowed/);
        expect(guard.check('LOCALHOST:3000', undefined)).toBeUndefined();
        expect(guard.check('localhost:3001', undefined)).toMatch(/not allowed/);
      }
    });

    it('refuses a missing or foreign Host', () => {
      const guard = new HostGuard(LOOPBACK, undefined, 3000);
      expect(guard.check(undefined, undefined)).toMatch(/\(none\)/);
      expect(guard.check('evil.example', undefined)).toMatch(/Host header not allowed/);
      expect(guard.check('localhost.evil.example', undefined)).toMatch(/Host header not allowed/);
      expect(guard.check('127.0.0.1.nip.io', undefined)).toMatch(/Host header not allowed/);
    });

    it('matches an entry that names a port exactly', () => {
      const guard = new HostGuard(['mcp.internal:8443'], undefined, 3000);
      expect(guard.check('mcp.internal:8443', undefined)).toBeUndefined();
      expect(guard.check('mcp.internal', undefined)).toMatch(/not allowed/);
    });
  });

  describe('Origin', () => {
    const guard = new HostGuard(LOOPBACK, undefined, 3000);

    it('accepts http(s) origins of the allowed hosts on any port (local tools such as the MCP Inspector)', () => {
      for (const origin of [
        'http://localhost:6274',
        'http://127.0.0.1:6274',
        'http://[::1]:6274',
        'https://localhost',
        'HTTP://LOCALHOST:3000',
        'http://localhost:3000/',
      ]) {
        expect(guard.check('localhost:3000', origin)).toBeUndefined();
      }
    });

    it('refuses foreign, opaque, non-http and malformed origins', () => {
      for (const origin of [
        'http://evil.example',
        'http://localhost.evil.example:6274',
        'http://127.0.0.1.nip.io',
        'null',
        'file://localhost',
        'chrome-extension://abc',
        'not a url',
        '',
      ]) {
        expect(guard.check('localhost:3000', origin)).toMatch(/Origin not allowed/);
      }
    });

    it('uses an explicit allow-list as given (case and trailing slash aside)', () => {
      const listed = new HostGuard(LOOPBACK, ['https://App.internal/'], 3000);
      expect(listed.check('localhost', 'https://app.internal')).toBeUndefined();
      expect(listed.check('localhost', 'http://localhost:6274')).toMatch(/Origin not allowed/);
    });
  });
});
