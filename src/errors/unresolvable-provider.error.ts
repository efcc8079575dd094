import { McpDefinitionError } from './mcp-definition.error';

/**
 * tsyringe cannot construct a provider, typically because a class with constructor parameters has no
 * `@injectable()` ("TypeInfo not known for X").
 */
export class UnresolvableProviderError extends McpDefinitionError {
  constructor(provider: string, detail: string, missing?: string) {
    super(
      missing
        ? `Cannot construct provider ${provider}: tsyringe does not know how to build ${missing}` +
            (missing === provider ? '' : ` (a constructor dependency of ${provider})`) +
            `. Either decorate ${missing} with @injectable() from tsyringe, so its constructor parameters are injected, ` +
            `or list it in a module's providers as { provide: ${missing}, useValue | useFactory }. ` +
            `Under runners that emit no decorator metadata (tsx, esbuild, vitest), @injectable() also needs ` +
            `@inject(Dependency) on each constructor parameter.`
        : `Cannot construct provider ${provider}: ${detail}`,
    );
  }
}
