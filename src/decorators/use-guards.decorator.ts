import type { GuardClass } from '../contracts/guard';
import { accessDecorator, type ClassOrMethodDecorator } from './access-target';

/**
 * Guards decide, per caller, whether a handler may be used (and listed). Each is a class with
 * `canActivate(context)`, resolved through the application's container; all must allow.
 */
export function UseGuards(...guards: GuardClass[]): ClassOrMethodDecorator {
  return accessDecorator(
    'UseGuards',
    (fail) => {
      if (guards.length === 0) fail('name at least one guard class');
      if (guards.some((g) => typeof g !== 'function')) fail('guards must be classes');
    },
    { guards: [...guards] },
  );
}
