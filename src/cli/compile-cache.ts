import { enableCompileCache } from 'node:module';

/*
 * Imported for its effect, before the modules it should speed up: Node's own compile cache (22.1+) keeps the
 * compiled code of the modules loaded after it in the user's cache folder (NODE_COMPILE_CACHE moves it,
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off), so that later starts skip compiling them. The package's
 * install folder is never written.
 */
enableCompileCache?.();
