import { redirectConsoleToStderr } from './kernel/console-redirect';

/*
 * Imported for its effect, first thing in the entry file of a stdio server, before the modules that
 * may log while they are imported: from then on console.log/info/debug write to stderr, keeping
 * stdout for protocol messages.
 */
redirectConsoleToStderr();
