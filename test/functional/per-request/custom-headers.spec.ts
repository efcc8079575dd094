import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import request from 'supertest';
import { injectable } from 'tsyringe';
import { Field, InvalidDecoratorOptionsError, McpApplication, McpHeader, McpModule, Tool } from '../../../src';
import { ACCEPT_BOTH, initializeBody } from '../../helpers/http-app';
import { httpTransport } from '../../../src/http';
import type { RequestListener } from '../../../src/http';

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

class Target {
  @McpHeader('Zone') @IsString() zone!: string;
}

class RouteInput {
  @Field('Where to run') @McpHeader('Region') @IsString() region!: string;
  @McpHeader('Priority') @IsOptional() @IsInt() priority?: number;
  @McpHeader('Verbose') @IsOptional() @IsBoolean() verbose?: boolean;
  @IsOptional() @ValidateNested() @Type(() => Target) target?: Target;
  @IsOptional() @IsString() query?: string;
}

@injectable()
class RouteTools {
  @Tool({ description: 'Echoes its arguments' })
  route(input: RouteInput) {
    return JSON.stringify(input);
  }
}

@McpModule({ providers: [RouteTools], server: { name: 'headers-test', version: '1.0.0' } })
class RouteModule {}

/** A module with one tool declared by `tool`, to see what registration says of it. */
async function bootWith(decorate: (cls: { prototype: object }) => void): Promise<unknown> {
  @injectable()
  class Tools {
    t(_: Record<string, unknown>) {
      return 'ok';
    }
  }
  decorate(Tools);
  @McpModule({ providers: [Tools] })
  class M {}
  return McpApplication.create(M, quiet).then(
    (app) => app.close(),
    (error: unknown) => error,
  );
}

const perRequestMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** `x-mcp-header` (`@McpHeader`): the schema annotation, the definition rules, and the server's check of Mcp-Param-* headers. */
describe('tool parameters mirrored into HTTP headers (x-mcp-header)', () => {
  let app: McpApplication;
  let callback: RequestListener;

  beforeAll(async () => {
    app = await McpApplication.create(RouteModule, quiet);
    callback = httpTransport(app).callback();
  });
  afterAll(() => app.close());

  let id = 0;
  const call = (args: Record<string, unknown>, headers: Record<string, string> = {}) =>
    request(callback)
      .post('/mcp')
      .set({
        Accept: ACCEPT_BOTH,
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'route',
        ...headers,
      })
      .send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name: 'route', arguments: args, _meta: perRequestMeta },
        }),
      );

  const expectAccepted = async (res: request.Response, args: Record<string, unknown>) => {
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    expect(JSON.parse(res.body.result.content[0].text)).toEqual(args);
  };
  const expectRefused = (res: request.Response, why: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32020, message: expect.stringMatching(why) } });
  };

  it('emits "x-mcp-header" in the property schema, nested properties included', async () => {
    const res = await request(callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: perRequestMeta } });
    const schema = res.body.result.tools[0].inputSchema;
    expect(schema.properties.region).toEqual({ type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' });
    expect(schema.properties.priority).toEqual({ type: 'integer', 'x-mcp-header': 'Priority' });
    expect(schema.properties.verbose).toEqual({ type: 'boolean', 'x-mcp-header': 'Verbose' });
    expect(schema.properties.target.properties.zone).toEqual({ type: 'string', 'x-mcp-header': 'Zone' });
    expect(schema.properties.query).toEqual({ type: 'string' });
  });

  it('accepts headers equal to the arguments: plain, base64-encoded, integers and booleans by value', async () => {
    await expectAccepted(await call({ region: 'us-west1' }, { 'Mcp-Param-Region': 'us-west1' }), { region: 'us-west1' });
    // Header names are case-insensitive.
    await expectAccepted(await call({ region: 'us-west1' }, { 'mcp-param-region': 'us-west1' }), { region: 'us-west1' });
    await expectAccepted(await call({ region: 'Hello, 世界' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }), {
      region: 'Hello, 世界',
    });
    await expectAccepted(await call({ region: ' padded ' }, { 'Mcp-Param-Region': '=?base64?IHBhZGRlZCA=?=' }), { region: ' padded ' });
    // Not the whole sentinel: a literal value.
    await expectAccepted(await call({ region: 'SGVsbG8=' }, { 'Mcp-Param-Region': 'SGVsbG8=' }), { region: 'SGVsbG8=' });
    await expectAccepted(await call({ region: '=?base64?SGVsbG8=' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8=' }), {
      region: '=?base64?SGVsbG8=',
    });
    const all = { region: 'eu', priority: -7, verbose: false, target: { zone: 'b' } };
    await expectAccepted(
      await call(all, { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Priority': '-7', 'Mcp-Param-Verbose': 'false', 'Mcp-Param-Zone': 'b' }),
      all,
    );
  });

  it('refuses a missing header, a different value, or a header for an absent argument with 400 / -32020', async () => {
    expectRefused(await call({ region: 'test-value' }), /Mcp-Param-Region header is required/);
    expectRefused(await call({ region: 'us-west1' }, { 'Mcp-Param-Region': 'eu-west1' }), /does not match/);
    expectRefused(
      await call({ region: 'eu', priority: 5 }, { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Priority': '6' }),
      /Mcp-Param-Priority header does not match/,
    );
    expectRefused(
      await call({ region: 'eu', priority: 5 }, { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Priority': 'five' }),
      /Mcp-Param-Priority/,
    );
    expectRefused(
      await call({ region: 'eu', verbose: true }, { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Verbose': 'TRUE' }),
      /Mcp-Param-Verbose/,
    );
    expectRefused(await call({ region: 'eu', target: { zone: 'a' } }, { 'Mcp-Param-Region': 'eu' }), /Mcp-Param-Zone header is required/);
    expectRefused(await call({ region: 'eu' }, { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Priority': '1' }), /arguments have no "priority"/);
  });

  it('decodes =?base64?…?= strictly: padding and alphabet, else 400 / -32020', async () => {
    expectRefused(await call({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }), /not a valid =\?base64/);
    expectRefused(await call({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }), /not a valid =\?base64/);
    expectRefused(await call({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SG=sbG8=?=' }), /not a valid =\?base64/);
    // Valid base64 of bytes that are not UTF-8 cannot equal any string.
    expectRefused(await call({ region: 'x' }, { 'Mcp-Param-Region': '=?base64?/w==?=' }), /not a valid =\?base64/);
    // And the server keeps serving.
    await expectAccepted(await call({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8=?=' }), { region: 'Hello' });
  });

  it('leaves a 2025-11-25 session alone: its clients send no Mcp-Param-* headers', async () => {
    const init = await request(callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    const session = init.headers['mcp-session-id'];
    const res = await request(callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' })
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'route', arguments: { region: 'eu' } } });
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('{"region":"eu"}');
  });

  describe('definition rules, checked when the application starts', () => {
    const failure = async (decorate: (cls: { prototype: object }) => void) => {
      const error = await bootWith(decorate);
      expect(error).toBeInstanceOf(InvalidDecoratorOptionsError);
      return (error as Error).message;
    };
    const rawTool = (inputSchema: Record<string, unknown>) => (cls: { prototype: object }) =>
      Tool({ description: 'raw', inputSchema: { type: 'object', ...inputSchema } })(
        cls.prototype,
        't',
        Object.getOwnPropertyDescriptor(cls.prototype, 't')!,
      );

    it('refuses a header name that is not an HTTP token', async () => {
      expect(await failure(rawTool({ properties: { a: { type: 'string', 'x-mcp-header': 'Re gion' } } }))).toMatch(
        /@Tool on Tools\.t: x-mcp-header "Re gion" of "a" is not an HTTP header token/,
      );
      expect(await failure(rawTool({ properties: { a: { type: 'string', 'x-mcp-header': '' } } }))).toMatch(/not an HTTP header token/);
      expect(await failure(rawTool({ properties: { a: { type: 'string', 'x-mcp-header': 'A\r\nB' } } }))).toMatch(
        /not an HTTP header token/,
      );
    });

    it('refuses names that clash case-insensitively', async () => {
      const schema = { properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } } };
      expect(await failure(rawTool(schema))).toMatch(/x-mcp-header "region" of "b" is already used by "a"/);
    });

    it('refuses it on a number or an object property', async () => {
      class NumberInput {
        @McpHeader('Score') @IsNumber() score!: number;
      }
      expect(
        await failure((cls) =>
          Tool({ description: 'n', input: NumberInput })(cls.prototype, 't', Object.getOwnPropertyDescriptor(cls.prototype, 't')!),
        ),
      ).toMatch(/x-mcp-header on "score" needs a string, integer or boolean property \(its type is "number"\)/);
      expect(await failure(rawTool({ properties: { o: { type: 'object', 'x-mcp-header': 'O' } } }))).toMatch(/its type is "object"/);
    });

    it('refuses it where it is not reachable through properties alone (items, $defs, composition)', async () => {
      const item = { type: 'string', 'x-mcp-header': 'Item' };
      expect(await failure(rawTool({ properties: { list: { type: 'array', items: item } } }))).toMatch(/on "list" is not reachable/);
      expect(await failure(rawTool({ $defs: { d: item }, properties: { d: { $ref: '#/$defs/d' } } }))).toMatch(/not reachable/);
      expect(await failure(rawTool({ anyOf: [{ properties: { a: item } }] }))).toMatch(/on "a" is not reachable/);
    });

    it('accepts a valid raw schema verbatim', async () => {
      expect(await bootWith(rawTool({ properties: { a: { type: 'integer', 'x-mcp-header': 'A' } } }))).toBeUndefined();
    });
  });
});
