import { Type } from 'class-transformer';
import { IsIn, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import { EmptyInput, McpModule, Tool, View } from '../../src';
import { connect } from '../helpers/in-memory';

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

@View({ uri: 'ui://forecast/chart', html: '<html>chart</html>' })
class ForecastChart {}

class Day {
  @IsString() date!: string;
  @IsNumber() high!: number;
}

class Forecast {
  @IsString() city!: string;
  @IsIn(['C', 'F']) unit!: 'C' | 'F';
  @ValidateNested({ each: true }) @Type(() => Day) days!: Day[];
  @IsOptional() @IsString() note?: string;
}

const OSLO: Forecast = { city: 'Oslo', unit: 'C', days: [{ date: '2026-11-22', high: 3 }] };

class ForecastTools {
  /** Returns only data: mcpkit sends it as structuredContent and writes the text fallback. */
  @Tool({ ui: ForecastChart, output: Forecast })
  forecast(_: EmptyInput): Forecast {
    return OSLO;
  }

  /** Returns data that does not match its output class. */
  @Tool({ ui: ForecastChart, output: Forecast })
  broken(_: EmptyInput) {
    return { city: 'Oslo', unit: 'K', days: [{ date: '2026-11-22', high: 'warm' }] };
  }

  /** A full result with structuredContent and no content: the text fallback is written for it. */
  @Tool({ ui: ForecastChart, output: Forecast })
  bare(_: EmptyInput) {
    return { content: [], structuredContent: OSLO, _meta: { 'example/kept': true } };
  }

  /** fallback 'handler' with an output class: its own text is kept, its structuredContent is still checked. */
  @Tool({ ui: { view: ForecastChart, fallback: 'handler' }, output: Forecast })
  own(_: EmptyInput) {
    return { content: [{ type: 'text', text: 'Oslo: 3 °C tomorrow' }], structuredContent: OSLO };
  }

  @Tool({ ui: { view: ForecastChart, fallback: 'handler' }, output: Forecast })
  ownBroken(_: EmptyInput) {
    return {
      content: [{ type: 'text', text: 'Oslo: warm' }],
      structuredContent: { city: 'Oslo', unit: 'C', days: [{ date: '2026-11-22', high: 'warm' }] },
    };
  }

  /** An error result is not data: it passes through unchecked. */
  @Tool({ ui: ForecastChart, output: Forecast })
  failing(_: EmptyInput) {
    return { content: [{ type: 'text', text: 'no forecast for Atlantis' }], isError: true };
  }
}

@McpModule({ providers: [ForecastChart, ForecastTools] })
class ForecastModule {}

describe('typed data for a view: structuredContent checked against the output class, text fallback written by mcpkit', () => {
  async function withClient(use: (call: (name: string) => Promise<unknown>, logged: string[]) => Promise<void>): Promise<void> {
    const { app, client, logged } = await connect(ForecastModule, {}, { capabilities: UI });
    try {
      await use((name) => client.request('tools/call', { name, arguments: {} }), logged);
    } finally {
      await app.close();
    }
  }

  it('a view tool that returns only data sends it as structuredContent with its JSON as the text fallback', async () => {
    await withClient(async (call) => {
      expect(await call('forecast')).toEqual({ content: [{ type: 'text', text: JSON.stringify(OSLO) }], structuredContent: OSLO });
    });
  });

  it('data that fails the output class never reaches the view: an error result, details in the log', async () => {
    await withClient(async (call, logged) => {
      expect(await call('broken')).toEqual({ content: [{ type: 'text', text: 'Tool "broken" produced invalid output' }], isError: true });
      expect(logged.join('\n')).toMatch(/broken.*fails its output class.*unit/);
    });
  });

  it('a full result with structuredContent and empty content gets the JSON text fallback; its other fields are kept', async () => {
    await withClient(async (call) => {
      expect(await call('bare')).toEqual({
        content: [{ type: 'text', text: JSON.stringify(OSLO) }],
        structuredContent: OSLO,
        _meta: { 'example/kept': true },
      });
    });
  });

  it("fallback 'handler': the handler's text is kept and its structuredContent is checked against the output class", async () => {
    await withClient(async (call, logged) => {
      expect(await call('own')).toEqual({ content: [{ type: 'text', text: 'Oslo: 3 °C tomorrow' }], structuredContent: OSLO });
      expect(await call('ownBroken')).toEqual({
        content: [{ type: 'text', text: 'Tool "ownBroken" produced invalid output' }],
        isError: true,
      });
      expect(logged.join('\n')).toMatch(/ownBroken.*fails its output class.*days/);
    });
  });

  it('an error result passes through unchecked', async () => {
    await withClient(async (call) => {
      expect(await call('failing')).toEqual({ content: [{ type: 'text', text: 'no forecast for Atlantis' }], isError: true });
    });
  });
});
