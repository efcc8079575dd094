import type { Middleware } from '../contracts/middleware';
import { accessDecorator, type ClassOrMethodDecorator } from './access-target';

/**
 * Middleware around this handler only (or every handler of the class), inside the application's
 * middleware: class-level first, then the method's, each in the order given.
 */
export function UseMiddleware(...middleware: Middleware[]): ClassOrMethodDecorator {
  return accessDecorator(
    'UseMiddleware',
    (fail) => {
      if (middleware.length === 0) fail('name at least one middleware function');
      if (middleware.some((m) => typeof m !== 'function')) fail('middleware must be functions');
    },
    { middleware: [...middleware] },
  );
}
