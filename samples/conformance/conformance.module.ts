import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { McpModule } from '../../src';
import { ConformanceResources } from './conformance.resources';
import { PerRequestConformanceTools } from './conformance.per-request';
import { ConformanceTools } from './conformance.tools';
import { TaskConformanceTools } from './conformance.tasks';

/** The sample's skills: beside this file when run from source, in samples/ when run from dist/. */
const SKILLS = existsSync(join(__dirname, 'skills'))
  ? join(__dirname, 'skills')
  : join(__dirname, '..', '..', '..', 'samples', 'conformance', 'skills');

@McpModule({
  server: {
    name: 'mcpkit-conformance',
    version: '1.0.0',
    description: 'The fixtures of the official MCP conformance suite, written with mcpkit',
  },
  providers: [ConformanceTools, ConformanceResources, PerRequestConformanceTools, TaskConformanceTools],
  // Agent Skills (io.modelcontextprotocol/skills), for the sep-2640 scenarios.
  skills: { folders: [SKILLS] },
})
export class ConformanceModule {}
