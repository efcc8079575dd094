import type {
  Annotations,
  AudioContent,
  EmbeddedResource,
  ImageContent,
  PromptMessage,
  ResourceContents,
  ResourceLink,
  TextContent,
  ContentBlock,
} from '../mcp/mcp-types';

const toBase64 = (data: string | Uint8Array) => (typeof data === 'string' ? data : Buffer.from(data).toString('base64'));

/** A text content block. */
export function text(value: string, annotations?: Annotations): TextContent {
  return annotations ? { type: 'text', text: value, annotations } : { type: 'text', text: value };
}

/** An image content block; `data` is base64 or raw bytes. */
export function image(data: string | Uint8Array, mimeType: string, annotations?: Annotations): ImageContent {
  const block: ImageContent = { type: 'image', data: toBase64(data), mimeType };
  if (annotations) block.annotations = annotations;
  return block;
}

/** An audio content block; `data` is base64 or raw bytes. */
export function audio(data: string | Uint8Array, mimeType: string, annotations?: Annotations): AudioContent {
  const block: AudioContent = { type: 'audio', data: toBase64(data), mimeType };
  if (annotations) block.annotations = annotations;
  return block;
}

/** A link to a resource the client may read. */
export function resourceLink(uri: string, name: string, extra: Omit<ResourceLink, 'type' | 'uri' | 'name'> = {}): ResourceLink {
  return { type: 'resource_link', uri, name, ...extra };
}

/** A resource embedded in the result: text, or bytes (sent as base64). */
export function embeddedResource(
  uri: string,
  content: string | Uint8Array,
  mimeType?: string,
  annotations?: Annotations,
): EmbeddedResource {
  const resource: ResourceContents =
    typeof content === 'string' ? { uri, text: content } : { uri, blob: Buffer.from(content).toString('base64') };
  if (mimeType) resource.mimeType = mimeType;
  return annotations ? { type: 'resource', resource, annotations } : { type: 'resource', resource };
}

/** A prompt message from the user. */
export function userMessage(content: string | ContentBlock): PromptMessage {
  return { role: 'user', content: typeof content === 'string' ? text(content) : content };
}

/** A prompt message from the assistant. */
export function assistantMessage(content: string | ContentBlock): PromptMessage {
  return { role: 'assistant', content: typeof content === 'string' ? text(content) : content };
}
