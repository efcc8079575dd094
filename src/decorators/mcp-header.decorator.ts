import { Allow } from 'class-validator';
import { recordMcpHeader } from '../schema/mcp-header';
import { rejectStandardDecorator } from './describe-target';

/**
 * Mirrors a tool input property into the `Mcp-Param-{name}` HTTP header (MCP 2026-07-28
 * `x-mcp-header`): its schema gets `"x-mcp-header": name`, clients send the value in that header too,
 * and the server answers 400 / -32020 when the header is missing or differs from the body. Only on
 * string, integer or boolean properties reachable through nested `properties`; names are HTTP tokens,
 * unique case-insensitively per tool (checked when the application starts). Like `@Field`, it marks
 * the property as allowed.
 */
export function McpHeader(name: string): PropertyDecorator {
  const allow = Allow();
  return (target, property) => {
    rejectStandardDecorator('McpHeader', property);
    if (typeof property !== 'string') return;
    recordMcpHeader(target.constructor, property, name);
    allow(target, property);
  };
}
