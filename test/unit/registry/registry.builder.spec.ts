import { IsOptional, IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  ClashingUriTemplateError,
  Complete,
  DuplicatePromptNameError,
  DuplicateResourceError,
  DuplicateToolNameError,
  EmptyInput,
  InvalidDecoratorOptionsError,
  InvalidModuleError,
  McpApplication,
  McpContext,
  McpModule,
  MissingDesignMetadataError,
  MissingInputMetadataError,
  Prompt,
  ReflectMetadataMissingError,
  Resource,
  Tool,
  UnknownCompletionTargetError,
} from '../../../src';
import { buildRegistry } from '../../../src/registry/registry.builder';

class NameInput {
  @IsString() name!: string;
}
class PromptArgs {
  @IsString() topic!: string;
  @IsOptional() @IsString() tone?: string;
}

const entry = (cls: new (...args: never[]) => unknown) => ({ token: cls, cls });
const build = (...classes: (new (...args: never[]) => unknown)[]) => buildRegistry(classes.map(entry));

describe('buildRegistry', () => {
  it('builds descriptors for tools, resources, templates, prompts and completers', () => {
    class Provider {
      @Tool({
        description: 'Greets',
        title: 'Greeter',
        annotations: { readOnlyHint: true },
        icons: [{ src: 'https://x/i.png' }],
        taskSupport: 'optional',
      })
      greet(input: NameInput) {
        return input.name;
      }
      @Tool({ name: 'no-input' })
      ping(ctx: McpContext) {
        return ctx.requestId;
      }
      @Resource({ uri: 'app://config', mimeType: 'application/json', size: 10 })
      config() {
        return {};
      }
      @Resource({ uriTemplate: 'app://users/{id}' })
      user(vars: { id: string }) {
        return vars.id;
      }
      @Prompt({ description: 'Write' })
      write(args: PromptArgs) {
        return args.topic;
      }
      @Complete({ prompt: 'write', argument: 'tone' })
      tones() {
        return ['dry'];
      }
      @Complete({ resource: 'app://users/{id}', argument: 'id' })
      ids() {
        return ['1'];
      }
    }
    const registry = build(Provider);
    expect(registry.tool('greet')).toMatchObject({
      name: 'greet',
      method: 'greet',
      kind: 'tool',
      where: 'Provider.greet',
      contextFirst: false,
      input: NameInput,
      taskSupport: 'optional',
      definition: {
        name: 'greet',
        title: 'Greeter',
        description: 'Greets',
        inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        annotations: { readOnlyHint: true },
        icons: [{ src: 'https://x/i.png' }],
        execution: { taskSupport: 'optional' },
      },
    });
    expect(registry.tool('no-input')).toMatchObject({
      contextFirst: true,
      input: undefined,
      definition: { inputSchema: { type: 'object', properties: {} } },
    });
    expect(registry.tool('no-input')!.definition).not.toHaveProperty('execution');
    expect(registry.resource('app://config')!.definition).toEqual({
      uri: 'app://config',
      name: 'config',
      mimeType: 'application/json',
      size: 10,
    });
    expect(registry.matchTemplate('app://users/7')).toMatchObject({ variables: { id: '7' }, descriptor: { method: 'user' } });
    expect(registry.prompt('write')!.definition.arguments).toEqual([
      { name: 'topic', required: true },
      { name: 'tone', required: false },
    ]);
    expect(registry.prompt('write')!.completers.get('tone')).toMatchObject({ method: 'tones', kind: 'completion' });
    expect(registry.templateByPattern('app://users/{id}')!.completers.get('id')).toMatchObject({ method: 'ids' });
    expect(registry.hasCompletions).toBe(true);
    expect(Object.isFrozen(registry.tool('greet')!.definition.inputSchema)).toBe(true);
  });

  it('rejects two tools with one name', () => {
    class A {
      @Tool({ name: 'same' }) one(_: EmptyInput) {}
    }
    class B {
      @Tool({ name: 'same' }) two(_: EmptyInput) {}
    }
    expect(() => build(A, B)).toThrow(DuplicateToolNameError);
    expect(() => build(A, B)).toThrow('Tool name "same" is declared twice: by A.one and by B.two');
  });

  it('rejects two prompts with one name', () => {
    class A {
      @Prompt({ name: 'p' }) one(_: EmptyInput) {}
      @Prompt({ name: 'p' }) two(_: EmptyInput) {}
    }
    expect(() => build(A)).toThrow(DuplicatePromptNameError);
  });

  it('rejects two resources with one URI or one name', () => {
    class SameUri {
      @Resource({ uri: 'a://x', name: 'one' }) one() {}
      @Resource({ uri: 'a://x', name: 'two' }) two() {}
    }
    class SameName {
      @Resource({ uri: 'a://x', name: 'n' }) one() {}
      @Resource({ uriTemplate: 'a://{y}', name: 'n' }) two() {}
    }
    expect(() => build(SameUri)).toThrow(DuplicateResourceError);
    expect(() => build(SameUri)).toThrow('URI "a://x"');
    expect(() => build(SameName)).toThrow('name "n"');
  });

  it('rejects URI templates that match the same URIs', () => {
    class Clash {
      @Resource({ uriTemplate: 'notes://{id}' }) one() {}
      @Resource({ uriTemplate: 'notes://{name}' }) two() {}
    }
    expect(() => build(Clash)).toThrow(ClashingUriTemplateError);
    expect(() => build(Clash)).toThrow('"notes://{name}" (Clash.two) clashes with "notes://{id}" (Clash.one)');
  });

  it('rejects @Complete aimed at an unknown prompt, template, argument or variable', () => {
    class Base {
      @Prompt() p(_: PromptArgs) {}
      @Resource({ uriTemplate: 'u://{id}' }) r() {}
    }
    class NoPrompt extends Base {
      @Complete({ prompt: 'nope', argument: 'topic' }) c() {}
    }
    class NoArgument extends Base {
      @Complete({ prompt: 'p', argument: 'nope' }) c() {}
    }
    class NoTemplate extends Base {
      @Complete({ resource: 'u://{other}', argument: 'id' }) c() {}
    }
    class NoVariable extends Base {
      @Complete({ resource: 'u://{id}', argument: 'nope' }) c() {}
    }
    expect(() => build(NoPrompt)).toThrow(UnknownCompletionTargetError);
    expect(() => build(NoPrompt)).toThrow('no prompt is named "nope"');
    expect(() => build(NoArgument)).toThrow('prompt "p" has no argument "nope"');
    expect(() => build(NoTemplate)).toThrow('no resource template is "u://{other}"');
    expect(() => build(NoVariable)).toThrow('template "u://{id}" has no variable "nope"');
  });

  it('rejects a handler whose input type carries no metadata', () => {
    class Bare {
      name!: string;
    }
    interface Shape {
      name: string;
    }
    class WithBareClass {
      @Tool() t(_: Bare) {}
    }
    class WithInterface {
      @Tool() t(_: Shape) {}
    }
    class WithPrimitive {
      @Prompt() p(_: string) {}
    }
    expect(() => build(WithBareClass)).toThrow(MissingInputMetadataError);
    expect(() => build(WithBareClass)).toThrow('WithBareClass.t: input type Bare carries no class-validator metadata');
    expect(() => build(WithInterface)).toThrow('WithInterface.t: the input type is an interface, a type literal or `any`');
    expect(() => build(WithPrimitive)).toThrow('input type String');
  });

  it('rejects a handler compiled without decorator metadata', () => {
    class NoMetadata {
      t(input: unknown) {
        return input;
      }
    }
    Tool()(NoMetadata.prototype, 't', Object.getOwnPropertyDescriptor(NoMetadata.prototype, 't')!);
    expect(() => build(NoMetadata)).toThrow(MissingDesignMetadataError);
    expect(() => build(NoMetadata)).toThrow(
      /^NoMetadata\.t: .*NoMetadata carries no decorator metadata at all.*compile with emitDecoratorMetadata .* or pass `input: YourClass` to @Tool/,
    );
  });

  it('rejects bootstrapping when reflect-metadata is not loaded', () => {
    const saved = Reflect.getMetadata;
    try {
      (Reflect as { getMetadata?: unknown }).getMetadata = undefined;
      expect(() => build()).toThrow(ReflectMetadataMissingError);
      expect(() => build()).toThrow(/Import "reflect-metadata"/);
    } finally {
      Reflect.getMetadata = saved;
    }
  });

  it('rejects bad decorator options at decoration time', () => {
    const proto = {};
    const d = { value: () => undefined };
    expect(() => Resource({} as never)(proto, 'm', d)).toThrow(InvalidDecoratorOptionsError);
    expect(() => Resource({ uri: 'a://b', uriTemplate: 'a://{c}' } as never)(proto, 'm', d)).toThrow(
      'exactly one of `uri` or `uriTemplate`',
    );
    expect(() => Complete({ argument: 'x' } as never)(proto, 'm', d)).toThrow('exactly one of `prompt` or `resource`');
    expect(() => Complete({ prompt: 'p', argument: '' })(proto, 'm', d)).toThrow('`argument`');
    expect(() => Tool({ taskSupport: 'sometimes' as never })(proto, 'm', d)).toThrow('taskSupport');
    expect(() => Tool({ name: '' })(proto, 'm', d)).toThrow('name');
  });
});

describe('McpApplication.create definition errors', () => {
  it('rejects a class that is not a module, and an import that is not a module', async () => {
    class NotAModule {}
    @McpModule({ imports: [NotAModule] })
    class Root {}
    await expect(McpApplication.create(NotAModule)).rejects.toThrow(InvalidModuleError);
    await expect(McpApplication.create(Root)).rejects.toThrow('Root imports NotAModule, which is not decorated with @McpModule');
  });

  it('fails at bootstrap when a provider cannot be constructed', async () => {
    class Missing {
      constructor(readonly x: number) {}
    }
    @injectable()
    class NeedsMissing {
      constructor(readonly m: Missing) {}
      @Tool() t(_: EmptyInput) {}
    }
    @McpModule({ providers: [NeedsMissing] })
    class Root {}
    await expect(McpApplication.create(Root)).rejects.toThrow(/Cannot construct provider NeedsMissing/);
  });
});
