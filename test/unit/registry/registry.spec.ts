import { IsString } from 'class-validator';
import { EmptyInput, McpApplication, McpModule, Prompt, Tool } from '../../../src';
import type { RegistryKinds } from '../../../src/registry/registry';
import { registryOf } from '../../../src/kernel/mcp-application';

class Topic {
  @IsString() topic!: string;
}

class FirstTools {
  @Tool() first(_: EmptyInput) {
    return 'first';
  }
}
class LaterPrompts {
  @Prompt() later(input: Topic) {
    return input.topic;
  }
}
class LaterTaskTools {
  @Tool({ taskSupport: 'optional' }) background(_: EmptyInput) {
    return 'done';
  }
}
class MoreTools {
  @Tool() more(_: EmptyInput) {
    return 'more';
  }
}

@McpModule({ providers: [FirstTools] })
class ToolsOnly {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** What a protocol engine needs to recompute capabilities when app.addProviders() adds a kind. */
describe('Registry kinds follow runtime changes', () => {
  it('reports the kinds it holds, live, and tells listeners when a kind appears', async () => {
    const app = await McpApplication.create(ToolsOnly, { logger: quiet });
    expect(registryOf(app).kinds()).toEqual({ tools: true, resources: false, prompts: false, completions: false, taskTools: false });
    const seen: [RegistryKinds, RegistryKinds][] = [];
    const stop = registryOf(app).onKindsChange((kinds, previous) => seen.push([kinds, previous]));

    app.addProviders(LaterPrompts);
    expect(registryOf(app).hasPrompts).toBe(true);
    expect(seen).toEqual([
      [
        { tools: true, resources: false, prompts: true, completions: false, taskTools: false },
        { tools: true, resources: false, prompts: false, completions: false, taskTools: false },
      ],
    ]);

    app.addProviders(MoreTools); // a new tool, but no new kind: no event
    expect(seen).toHaveLength(1);

    app.addProviders(LaterTaskTools);
    expect(registryOf(app).hasTaskTools).toBe(true);
    expect(seen).toHaveLength(2);
    expect(seen[1][0].taskTools).toBe(true);

    stop();
    await app.close();
  });
});
