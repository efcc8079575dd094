import type { ReadResourceResult, ResourceContents } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { ResourceDescriptor, TemplateDescriptor } from '../../registry/descriptors';
import { validateInput } from '../../validation/validate-input';
import type { CallStep } from './stages';

/** The validate stage of a template with a class for its variables: invalid variables are -32602. */
export function templateValidateStep(template: TemplateDescriptor): CallStep | undefined {
  const params = template.params;
  if (!params) return undefined;
  return async (call, next) => {
    const checked = await validateInput(params, call.arguments);
    if (!checked.ok)
      throw McpError.invalidParams(`Invalid URI variables for "${template.template.template}": ${checked.issues.join('; ')}`);
    call.input = checked.value;
    return next();
  };
}

/** The result stage of a resource or template: what it returned as the contents of the URI read (the call's name). */
export function resourceResultStep(resource: ResourceDescriptor | TemplateDescriptor): CallStep {
  const mimeType = resource.definition.mimeType;
  return async (call, next) => mapResourceResult(await next(), call.name, mimeType);
}

function isContents(value: unknown): value is ResourceContents {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.uri === 'string' && (typeof v.text === 'string' || typeof v.blob === 'string');
}

/**
 * Maps what a resource handler returned: a ReadResourceResult or contents pass through; a string is
 * text, bytes are a base64 blob, and any other value is sent as JSON.
 */
function mapResourceResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === 'object' && value !== null && Array.isArray((value as ReadResourceResult).contents)) {
    return value as ReadResourceResult;
  }
  if (isContents(value)) return { contents: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContents)) return { contents: value };
  const withType = (c: ResourceContents): ResourceContents => (mimeType ? { ...c, mimeType } : c);
  if (typeof value === 'string') return { contents: [withType({ uri, text: value })] };
  if (value instanceof Uint8Array) return { contents: [withType({ uri, blob: Buffer.from(value).toString('base64') })] };
  return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value ?? null) }] };
}
