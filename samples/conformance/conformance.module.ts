import { McpModule } from '../../src';
import { ConformanceResources } from './conformance.resources';
import { PerRequestConformanceTools } from './conformance.per-request';
import { ConformanceTools } from './conformance.tools';
import { TaskConformanceTools } from './conformance.tasks';

@McpModule({
  server: {
    name: 'mcpkit-conformance',
    version: '1.0.0',
    description: 'The fixtures of the official MCP conformance suite, written with mcpkit',
  },
  providers: [ConformanceTools, ConformanceResources, PerRequestConformanceTools, TaskConformanceTools],
})
export class ConformanceModule {}
