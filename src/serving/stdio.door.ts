import { verifyStdioToken } from '../auth/stdio-auth';
import { holdConsoleOnStderr } from '../kernel/console-redirect';
import type { FrontDoor } from '../kernel/serving';
import { type StdioOptions, StdioTransport } from '../transports/stdio.transport';

/**
 * Serves one client over this process's stdin and stdout: `await app.listen(stdio())`. The application
 * closes when stdin ends. `console.log`, `info` and `debug` write to stderr until it closes (stdout
 * carries protocol messages only), unless `redirectConsole: false`. With `auth`, the client's token is
 * verified once, before anything is served; without it, the client is the machine's local user.
 */
export function stdio(options: StdioOptions = {}): FrontDoor<Promise<void>> {
  return {
    open: async (serving) => {
      // Checked before anything is served: a server whose one client would be refused does not start.
      const auth = options.auth && (await verifyStdioToken(options.auth));
      // Held by this application until it closes: another application's redirect is its own.
      if (options.redirectConsole !== false && (options.output ?? process.stdout) === process.stdout) {
        const release = holdConsoleOnStderr();
        serving.track({ stopAccepting: () => undefined, close: async () => release() });
      }
      serving.connect(new StdioTransport(options), {
        auth,
        local: !auth,
        onClose: () => {
          serving.closeApplication().catch((e) => serving.logger.error('Could not close the application', e));
        },
      });
    },
  };
}
