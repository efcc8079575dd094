export { Tool } from './tool.decorator';
export { Resource } from './resource.decorator';
export { Prompt } from './prompt.decorator';
export { Complete } from './complete.decorator';
export { Field } from './field.decorator';
export { McpModule } from './mcp-module.decorator';
export { JsonSchema } from './json-schema.decorator';
