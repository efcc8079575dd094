import { accessDecorator, type ClassOrMethodDecorator } from './access-target';

/**
 * No requirement: the handler is usable by anyone the transport lets in (including anonymous callers
 * when it allows them), even when its class has `@RequireScopes` or `@UseGuards`.
 */
export function Public(): ClassOrMethodDecorator {
  return accessDecorator('Public', () => undefined, { public: true });
}
