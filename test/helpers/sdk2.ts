// The official TypeScript SDK 2.x client. The package publishes its types through `exports` only, which
// this repository's `moduleResolution: node10` does not read: the types come from the files themselves,
// the code from the package's CommonJS entry points.
import type * as ClientModule from '@modelcontextprotocol/client/dist/index.cjs';
import type * as StdioModule from '@modelcontextprotocol/client/dist/stdio.cjs';

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const sdk2: typeof ClientModule = require('@modelcontextprotocol/client');
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const sdk2Stdio: typeof StdioModule = require('@modelcontextprotocol/client/stdio');

export type Sdk2Client = InstanceType<typeof ClientModule.Client>;
export type Sdk2ClientOptions = ConstructorParameters<typeof ClientModule.Client>[1];

// The client side of the Skills extension (SEP-2640).
import type * as SkillsModule from '@modelcontextprotocol/client/dist/ext/skills/index.cjs';
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const sdk2Skills: typeof SkillsModule = require('@modelcontextprotocol/client/ext/skills');
