import { IsString } from 'class-validator';
import {
  Complete,
  Field,
  JsonSchema,
  McpApplication,
  McpModule,
  Prompt,
  Resource,
  Tool,
  type ApplicationOptions,
  type ModuleOptions,
  type Provider,
} from '../../../src';
import type { HttpOptions } from '../../../src/http';
import type { StdioOptions } from '../../../src/stdio';

/*
 * Type-level checks of the public option types: `npm test` type-checks test/ with tsc before jest
 * runs, so a misspelled option that stops being a compile error fails the build here (an unused
 * `@ts-expect-error` is itself an error).
 */

class Args {
  @IsString() topic!: string;
}

export const misspelledModule: ModuleOptions = {
  server: { name: 's', version: '1' },
  // @ts-expect-error `provider` is not an option (it is `providers`)
  provider: [],
};

export const misspelledApplication: ApplicationOptions = {
  // @ts-expect-error `pagesize` is not an option (it is `pageSize`)
  pagesize: 10,
};

export const misspelledStdio: StdioOptions = {
  // @ts-expect-error `redirectConsol` is not an option (it is `redirectConsole`)
  redirectConsol: false,
};

export const misspelledHttp: HttpOptions = {
  // @ts-expect-error `prot` is not an option (it is `port`)
  prot: 3000,
};

export const misspelledTasks: ApplicationOptions = {
  // @ts-expect-error `maxTTLMs` is not a task option (it is `maxTtlMs`)
  tasks: { maxTTLMs: 1000 },
};

class Service {}
// @ts-expect-error `useClas` is not a provider form (it is `useClass`)
export const misspelledProvider: Provider = { provide: 'svc', useClas: Service };

// @ts-expect-error `additionalProps` is not an option of @JsonSchema
@JsonSchema({ additionalProps: false })
export class MisspelledSchema {
  // @ts-expect-error `descripton` is not an option of @Field
  @Field({ descripton: 'typo' }) name?: string;
}

// @ts-expect-error `provders` is not an option of @McpModule
@McpModule({ provders: [] })
export class MisspelledModule {}

export class Handlers {
  // @ts-expect-error `descripton` is not an option of @Tool
  @Tool({ descripton: 'typo' })
  a() {}

  // @ts-expect-error `mimetype` is not an option of @Resource
  @Resource({ uri: 'x://a', mimetype: 'text/plain' })
  b() {}

  // @ts-expect-error @Prompt takes its arguments class as `input`, not `args`
  @Prompt({ args: Args })
  c(input: Args) {
    return input.topic;
  }

  // @ts-expect-error @Resource takes its variables class as `input`, not `params`
  @Resource({ uriTemplate: 'x://{topic}', params: Args })
  d(input: Args) {
    return input.topic;
  }

  // @ts-expect-error `mode` is not an option of @Complete
  @Complete({ prompt: 'g', argument: 'topic', mode: 'fast' })
  h(value: string) {
    return [value];
  }

  // One option name for the argument class on all three decorators.
  @Tool({ input: Args }) e(input: Args) {
    return input.topic;
  }
  @Resource({ uriTemplate: 'y://{topic}', input: Args }) f(input: Args) {
    return input.topic;
  }
  @Prompt({ input: Args }) g(input: Args) {
    return input.topic;
  }

  // `input: null`, the same on all three: the method takes only the context.
  @Tool({ input: null }) i() {}
  @Resource({ uriTemplate: 'z://{topic}', input: null }) j() {}
  @Prompt({ input: null }) k() {}

  // @ts-expect-error a static resource has no input: it is always called as method(ctx)
  @Resource({ uri: 'x://b', input: null })
  l() {}

  // @ts-expect-error `input` takes a class (or null), not a name
  @Tool({ input: 'Args' })
  m() {}
}

describe('public option types', () => {
  it('are checked by the compiler (see the @ts-expect-error lines of this file)', () => {
    expect(typeof McpApplication.create).toBe('function');
  });
});
