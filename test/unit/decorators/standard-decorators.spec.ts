import { Field, JsonSchema, McpModule, Prompt, Public, Resource, StandardDecoratorsError, Tool, UseGuards } from '../../../src';

// What code compiled with "experimentalDecorators" off hands a decorator: the value, then a context object.
const methodContext = (name: string) => ({ kind: 'method', name, static: false, private: false, addInitializer: () => undefined });
const fieldContext = (name: string) => ({ kind: 'field', name, static: false, private: false, addInitializer: () => undefined });
const classContext = (name: string) => ({ kind: 'class', name, addInitializer: () => undefined });

type Standard = (value: unknown, context: object) => unknown;
const asStandard = (decorator: unknown) => decorator as Standard;

describe('an mcpkit decorator applied as a standard (TC39) decorator', () => {
  it.each([
    ['Tool', () => asStandard(Tool())(function greet() {}, methodContext('greet')), 'method greet'],
    ['Prompt', () => asStandard(Prompt())(function write() {}, methodContext('write')), 'method write'],
    ['Resource', () => asStandard(Resource({ uri: 'x://a' }))(function read() {}, methodContext('read')), 'method read'],
    ['Field', () => asStandard(Field('Who'))(undefined, fieldContext('name')), 'field name'],
    ['JsonSchema', () => asStandard(JsonSchema({ additionalProperties: false }))(class Input {}, classContext('Input')), 'class Input'],
    ['McpModule', () => asStandard(McpModule({ providers: [] }))(class AppModule {}, classContext('AppModule')), 'class AppModule'],
    ['Public', () => asStandard(Public())(function open() {}, methodContext('open')), 'method open'],
    ['UseGuards', () => asStandard(UseGuards())(class Tools {}, classContext('Tools')), 'class Tools'],
  ])('@%s throws StandardDecoratorsError showing the tsconfig that fixes it', (decorator, apply, where) => {
    let error: unknown;
    try {
      apply();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StandardDecoratorsError);
    const message = (error as Error).message;
    expect(message.split('\n')[0]).toBe(
      `@${decorator} on ${where} was applied as a standard (TC39) decorator: this code was compiled with "experimentalDecorators" off. ` +
        "mcpkit, class-validator, class-transformer and tsyringe need TypeScript's experimental decorators.",
    );
    expect(message).toContain('"compilerOptions": { "experimentalDecorators": true, "emitDecoratorMetadata": true }');
    expect(message).toContain('plugins: [swc.vite()]');
  });
});
