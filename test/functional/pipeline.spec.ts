import { IsString, Length } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  type CanActivate,
  Complete,
  type GuardContext,
  type Invocation,
  McpApplication,
  McpModule,
  type Middleware,
  Prompt,
  RateLimit,
  RequireScopes,
  Resource,
  Timeout,
  Tool,
  UseGuards,
  UseMiddleware,
} from '../../src';
import { McpTestClient } from '../../src/testing';
import { mount } from '../../src/compose';

// One chain per handler, in the documented order (docs/guide/middleware.md): what each step sees and skips.

const trace: string[] = [];
const seen: { kind: string; name: string; handler: string; arguments: unknown; input: unknown; contextLast: boolean }[] = [];

class NoteInput {
  @IsString() @Length(1, 20) title!: string;
}

@injectable()
class Recording implements CanActivate {
  canActivate(context: GuardContext): boolean {
    trace.push(`guard ${context.name}`);
    return context.auth.subject !== 'mallory';
  }
}

const record: Middleware = async (invocation, next) => {
  trace.push(`app ${invocation.name}`);
  seen.push({
    kind: invocation.kind,
    name: invocation.name,
    handler: invocation.handler,
    arguments: invocation.arguments,
    input: invocation.args[0],
    contextLast: invocation.args[invocation.args.length - 1] === invocation.context,
  });
  return next();
};

const own: Middleware = async (invocation, next) => {
  trace.push(`own ${invocation.name}`);
  return next();
};

@injectable()
@RequireScopes('notes')
class Notes {
  @Tool({ description: 'Adds a note' })
  @UseGuards(Recording)
  @UseMiddleware(own)
  @RateLimit({ limit: 2, windowMs: 60_000 })
  @Timeout(5_000)
  add(input: NoteInput) {
    trace.push('handler');
    return `added ${input.title}`;
  }

  @Resource({ uriTemplate: 'notes://{title}' })
  read({ title }: { title: string }) {
    return `note ${title}`;
  }

  @Prompt({ description: 'Summarise' })
  summarise(input: NoteInput) {
    return `Summarise ${input.title}`;
  }

  @Complete({ prompt: 'summarise', argument: 'title' })
  titles(value: string) {
    return ['alpha', 'beta'].filter((t) => t.startsWith(value));
  }
}

@McpModule({ server: { name: 'pipeline', version: '1.0.0' }, providers: [Notes, Recording], middleware: [record] })
class NotesModule {}

async function clientAs(app: McpApplication, subject: string, scopes = ['notes']) {
  return McpTestClient.connect(app.connectInMemory({ local: false, auth: { subject, principal: `p:${subject}`, scopes } }));
}

beforeEach(() => {
  trace.length = 0;
  seen.length = 0;
});

describe('the pipeline of a call', () => {
  it('authorizes, limits, validates, then runs the middleware around the handler, in that order', async () => {
    const app = await McpApplication.create(NotesModule);
    const alice = await clientAs(app, 'alice');
    const result = await alice.request('tools/call', { name: 'add', arguments: { title: 'milk' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'added milk' }] });
    expect(trace).toEqual(['guard add', 'app add', 'own add', 'handler']);
    // The middleware sees the validated input (an instance of the input class), the arguments as sent, the context last.
    expect(seen).toEqual([
      { kind: 'tool', name: 'add', handler: 'Notes.add', arguments: { title: 'milk' }, input: expect.any(NoteInput), contextLast: true },
    ]);
    await app.close();
  });

  it('never reaches the middleware with a call refused before it: by a guard, a rate limit, or invalid arguments', async () => {
    const app = await McpApplication.create(NotesModule);
    const mallory = await clientAs(app, 'mallory');
    await expect(mallory.request('tools/call', { name: 'add', arguments: { title: 'x' } })).rejects.toMatchObject({ code: -32003 });
    expect(trace).toEqual(['guard add']);

    trace.length = 0;
    const bob = await clientAs(app, 'bob');
    const invalid = (await bob.request('tools/call', { name: 'add', arguments: { title: '' } })) as { isError?: boolean };
    expect(invalid.isError).toBe(true);
    // The rate limit is before validation: the invalid call spent a token, and reached neither middleware nor handler.
    expect(trace).toEqual(['guard add']);
    await bob.request('tools/call', { name: 'add', arguments: { title: 'ok' } });
    trace.length = 0;
    await expect(bob.request('tools/call', { name: 'add', arguments: { title: 'again' } })).rejects.toMatchObject({ code: -32023 });
    expect(trace).toEqual(['guard add']);
    await app.close();
  });

  it('hands middleware the kind, name and arguments of a template read, a prompt and a completion', async () => {
    const app = await McpApplication.create(NotesModule);
    const alice = await clientAs(app, 'alice');
    await alice.request('resources/read', { uri: 'notes://milk' });
    await alice.request('prompts/get', { name: 'summarise', arguments: { title: 'milk' } });
    const completion = await alice.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'summarise' },
      argument: { name: 'title', value: 'al' },
    });
    expect(completion).toEqual({ completion: { values: ['alpha'], total: 1, hasMore: false } });
    expect(seen).toEqual([
      {
        kind: 'template',
        name: 'notes://milk',
        handler: 'Notes.read',
        arguments: { title: 'milk' },
        input: { title: 'milk' },
        contextLast: true,
      },
      {
        kind: 'prompt',
        name: 'summarise',
        handler: 'Notes.summarise',
        arguments: { title: 'milk' },
        input: expect.any(NoteInput),
        contextLast: true,
      },
      { kind: 'completion', name: 'title', handler: 'Notes.titles', arguments: {}, input: 'al', contextLast: true },
    ]);
    await app.close();
  });
});

describe('a mounted handler', () => {
  const calls: string[] = [];
  const tag =
    (name: string): Middleware =>
    async (invocation: Invocation, next) => {
      calls.push(`${name} ${invocation.handler}`);
      return next();
    };

  @injectable()
  class Weather {
    @Tool({ description: 'Forecast' })
    @UseMiddleware(tag('own'))
    forecast(input: NoteInput) {
      calls.push('handler');
      return `sunny in ${input.title}`;
    }
  }

  @McpModule({ server: { name: 'weather', version: '1.0.0' }, providers: [Weather], middleware: [tag('weather app')] })
  class WeatherModule {}

  @McpModule({
    server: { name: 'gateway', version: '1.0.0' },
    providers: [],
    middleware: [tag('gateway app')],
  })
  class GatewayModule {}

  it("passes the mounting application's middleware, then its own application's, and its own middleware once", async () => {
    const app = await McpApplication.create(GatewayModule);
    await mount(app, 'w', WeatherModule);
    const client = await McpTestClient.connect(app.connectInMemory());
    await client.request('tools/call', { name: 'w_forecast', arguments: { title: 'Oslo' } });
    expect(calls).toEqual([
      'gateway app Weather.forecast (mounted at w)',
      'weather app Weather.forecast',
      'own Weather.forecast',
      'handler',
    ]);
    await app.close();
  });
});
