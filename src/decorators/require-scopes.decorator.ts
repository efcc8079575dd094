import { accessDecorator, type ClassOrMethodDecorator } from './access-target';

/**
 * The caller's token must carry every one of these scopes. On a class it applies to all its handlers;
 * on a method it adds to the class's.
 */
export function RequireScopes(...scopes: string[]): ClassOrMethodDecorator {
  return accessDecorator(
    'RequireScopes',
    (fail) => {
      if (scopes.length === 0) fail('name at least one scope');
      if (scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)))
        fail('scopes must be non-empty strings without spaces, quotes or backslashes');
    },
    { scopes: [...scopes] },
  );
}
