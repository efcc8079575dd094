import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { IsString, Length } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  Complete,
  DuplicateToolNameError,
  EmptyInput,
  InvalidDefinitionError,
  McpApplication,
  McpContext,
  McpModule,
  Middleware,
  Prompt,
  Resource,
  Tool,
} from '../../src';
import { waitFor } from '../helpers/wait-for';
import { mount, unmount } from '../../src/compose';

class CityInput {
  @IsString() @Length(2, 40) city!: string;
}

@injectable()
class WeatherService {
  readonly calls: string[] = [];
}

@injectable()
class WeatherTools {
  constructor(private readonly service: WeatherService) {}
  @Tool({ description: 'Forecast for a city' }) forecast(input: CityInput, ctx: McpContext) {
    this.service.calls.push(input.city);
    return `sunny in ${input.city} (${ctx instanceof McpContext ? 'ctx' : 'no ctx'})`;
  }
  @Resource({ uri: 'weather://stations', mimeType: 'application/json' }) stations() {
    return ['north', 'south'];
  }
  @Resource({ uriTemplate: 'weather://station/{id}' }) station({ id }: { id: string }) {
    return `station ${id}`;
  }
  @Complete({ resource: 'weather://station/{id}', argument: 'id' }) ids(value: string) {
    return ['north', 'south'].filter((s) => s.startsWith(value));
  }
  @Prompt({ description: 'Ask for weather' }) ask(input: CityInput) {
    return `What is the weather in ${input.city}?`;
  }
}

const seen: string[] = [];
const tag: Middleware = async (invocation, next) => {
  seen.push(`weather-mw:${invocation.handler}`);
  return next();
};

@McpModule({ server: { name: 'weather', version: '1.0.0' }, providers: [WeatherTools, WeatherService], middleware: [tag] })
class WeatherModule {}

@injectable()
class NewsTools {
  @Tool() forecast(_: EmptyInput) {
    return 'news forecast';
  }
  @Tool() headlines(_: EmptyInput) {
    return ['a', 'b'];
  }
}

@McpModule({ server: { name: 'news', version: '1.0.0' }, providers: [NewsTools] })
class NewsModule {}

@injectable()
class Own {
  @Tool() hello(_: EmptyInput) {
    return 'hello';
  }
  @Tool({ name: 'weather_forecast' }) clash(_: EmptyInput) {
    return 'clash';
  }
}

@McpModule({ server: { name: 'gateway', version: '1.0.0' }, providers: [] })
class GatewayModule {}

@McpModule({ server: { name: 'clashing', version: '1.0.0' }, providers: [Own] })
class ClashingModule {}

/** The gateway with the weather and news modules mounted under their prefixes. */
async function gateway(options?: Parameters<typeof McpApplication.create>[1]) {
  const app = await McpApplication.create(GatewayModule, options);
  await mount(app, 'weather', WeatherModule);
  await mount(app, 'news', NewsModule);
  return app;
}

async function client(app: McpApplication) {
  const c = new Client({ name: 'sdk', version: '1' });
  const changes: string[] = [];
  c.fallbackNotificationHandler = async (n) => void changes.push(n.method);
  await c.connect(app.connectInMemory());
  return { c, changes };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe('mounting modules under a prefix', () => {
  it('serves two modules under prefixes: names and URIs rewritten, handlers run in their own application', async () => {
    const app = await gateway();
    const { c } = await client(app);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['weather_forecast', 'news_forecast', 'news_headlines']);
    expect(textOf(await c.callTool({ name: 'weather_forecast', arguments: { city: 'Oslo' } }))).toBe('sunny in Oslo (ctx)');
    expect(textOf(await c.callTool({ name: 'news_forecast', arguments: {} }))).toBe('news forecast');
    expect(seen).toEqual(['weather-mw:WeatherTools.forecast']);
    // The mounted tool's input class still validates, in the mounting server.
    const bad = await c.callTool({ name: 'weather_forecast', arguments: { city: 'X' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('city');

    expect((await c.listResources()).resources).toEqual([
      { uri: 'weather://weather/stations', name: 'weather_stations', mimeType: 'application/json' },
    ]);
    expect((await c.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'weather://weather/station/{id}', name: 'weather_station' },
    ]);
    expect((await c.readResource({ uri: 'weather://weather/stations' })).contents[0]).toMatchObject({
      uri: 'weather://weather/stations',
      text: '["north","south"]',
    });
    expect((await c.readResource({ uri: 'weather://weather/station/north' })).contents[0]).toMatchObject({ text: 'station north' });
    const done = await c.complete({
      ref: { type: 'ref/resource', uri: 'weather://weather/station/{id}' },
      argument: { name: 'id', value: 'n' },
    });
    expect(done.completion.values).toEqual(['north']);
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(['weather_ask']);
    expect((await c.getPrompt({ name: 'weather_ask', arguments: { city: 'Rome' } })).messages[0].content).toEqual({
      type: 'text',
      text: 'What is the weather in Rome?',
    });
    // Unprefixed names are not served.
    await expect(c.callTool({ name: 'forecast', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await app.close();
  });

  it('refuses collisions with a named error, changing nothing', async () => {
    const clashing = await McpApplication.create(ClashingModule);
    await expect(mount(clashing, 'weather', WeatherModule)).rejects.toThrow(DuplicateToolNameError);
    await expect(mount(clashing, 'weather', WeatherModule)).rejects.toThrow(
      /weather_forecast.*Own\.clash.*WeatherTools\.forecast \(mounted at weather\)/,
    );
    await clashing.close();

    const app = await gateway();
    app.addTool({ name: 'extra_headlines', handler: () => 'x' });
    await expect(mount(app, 'weather', NewsModule)).rejects.toThrow(/already mounted/);
    await expect(mount(app, 'bad prefix', NewsModule)).rejects.toThrow(InvalidDefinitionError);
    await expect(mount(app, 'extra', NewsModule)).rejects.toThrow(DuplicateToolNameError);
    const { c } = await client(app);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual([
      'weather_forecast',
      'news_forecast',
      'news_headlines',
      'extra_headlines',
    ]);
    await app.close();
  });

  it('withdraws a mounted application whose runtime change collides (fails closed), and serves it again once resolved', async () => {
    const errors: string[] = [];
    const app = await gateway({
      logger: { error: (m) => void errors.push(m), warn: () => undefined, info: () => undefined },
    });
    app.addTool({ name: 'plugin_clash', handler: () => 'gateway' });
    const plugin = await McpApplication.create(NewsModule);
    await mount(app, 'plugin', plugin);
    const { c } = await client(app);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('plugin_headlines');
    plugin.addTool({ name: 'clash', handler: () => 'plugin' });
    expect(errors).toEqual([
      'A change of the application mounted at "plugin" collides with this one; its primitives are withdrawn until that is resolved',
    ]);
    // Nothing of the plugin is served: a tool it later hides cannot stay reachable through an old copy.
    plugin.disable('tool', 'headlines');
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['weather_forecast', 'news_forecast', 'news_headlines', 'plugin_clash']);
    await expect(c.callTool({ name: 'plugin_forecast', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    plugin.removeTool('clash');
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual([
      'weather_forecast',
      'news_forecast',
      'news_headlines',
      'plugin_clash',
      'plugin_forecast',
    ]);
    expect(textOf(await c.callTool({ name: 'plugin_clash', arguments: {} }))).toBe('gateway');
    await plugin.close();
    await app.close();
  });

  it("passes a mounted application's resource updates to the subscribers of the prefixed URI", async () => {
    const app = await gateway();
    const weather = await mount(app, 'sky', WeatherModule);
    const { c } = await client(app);
    const updates: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updates.push(n.params.uri));
    await c.subscribeResource({ uri: 'weather://sky/stations' });
    await weather.notifyResourceUpdated('weather://stations');
    await waitFor(() => updates.length === 1);
    expect(updates).toEqual(['weather://sky/stations']);
    await unmount(app, 'sky');
    await weather.notifyResourceUpdated('weather://stations');
    await c.ping();
    expect(updates).toHaveLength(1);
    await app.close();
  });

  it('mounts an application at runtime, follows its runtime changes, and unmounts it', async () => {
    const app = await gateway();
    const { c, changes } = await client(app);
    const plugin = await McpApplication.create(NewsModule);
    expect(await mount(app, 'plugin', plugin)).toBe(plugin);
    await waitFor(() => changes.includes('notifications/tools/list_changed'));
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('plugin_headlines');

    changes.length = 0;
    plugin.addTool({ name: 'late', handler: () => 'late tool' });
    await waitFor(() => changes.includes('notifications/tools/list_changed'));
    expect(textOf(await c.callTool({ name: 'plugin_late', arguments: {} }))).toBe('late tool');
    plugin.disable('tool', 'headlines');
    await waitFor(async () => !(await c.listTools()).tools.some((t) => t.name === 'plugin_headlines'));

    expect(await unmount(app, 'plugin')).toBe(true);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['weather_forecast', 'news_forecast', 'news_headlines']);
    expect(await unmount(app, 'plugin')).toBe(false);
    // An application given to mount is the caller's: unmount does not close it.
    const direct = await client(plugin);
    expect(textOf(await direct.c.callTool({ name: 'late', arguments: {} }))).toBe('late tool');
    await plugin.close();
    await app.close();
  });
});
