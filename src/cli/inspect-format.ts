import type { SearchSurface, Surface } from './surface';

type Json = Record<string, unknown>;

/** The surface as text for people; `--json` is the form for machines. */
export function formatSurface(s: Surface): string {
  const lines: string[] = [];
  const { name, version, title } = s.server as { name?: string; version?: string; title?: string };
  lines.push(`${name ?? '?'} ${version ?? ''}${title ? ` (${title})` : ''}, protocol ${s.protocolVersion}`.trim());
  if (s.instructions) lines.push(`  ${s.instructions}`);
  section(lines, 'Tools', s.tools, (t) => {
    const out = [`${str(t.name)}${describe(t)}`];
    out.push(...schemaLines('input', t.inputSchema as Json | undefined));
    if (t.outputSchema) out.push(...schemaLines('output', t.outputSchema as Json));
    const annotations = t.annotations ? Object.entries(t.annotations as Json).map(([k, v]) => `${k}=${JSON.stringify(v)}`) : [];
    if (annotations.length) out.push(`  annotations: ${annotations.join(' ')}`);
    return [...out, ...policyLines(s, `tool ${str(t.name)}`)];
  });
  section(lines, 'Resources', s.resources, (r) => [
    `${str(r.uri)}${r.mimeType ? ` [${str(r.mimeType)}]` : ''}${describe(r)}`,
    ...policyLines(s, `resource ${str(r.uri)}`),
  ]);
  section(lines, 'Resource templates', s.resourceTemplates, (r) => [
    `${str(r.uriTemplate)}${r.mimeType ? ` [${str(r.mimeType)}]` : ''}${describe(r)}`,
    ...policyLines(s, `template ${str(r.uriTemplate)}`),
  ]);
  section(lines, 'Prompts', s.prompts, (p) => {
    const args = ((p.arguments ?? []) as Json[]).map((a) => `${str(a.name)}${a.required ? '' : '?'}`);
    return [`${str(p.name)}(${args.join(', ')})${describe(p)}`, ...policyLines(s, `prompt ${str(p.name)}`)];
  });
  if (s.skills.length > 0)
    section(lines, 'Skills', s.skills, (k) => {
      const frontmatter = (k.frontmatter ?? {}) as Json;
      const files = Array.isArray(k.resources) ? `${k.resources.length} file${k.resources.length === 1 ? '' : 's'}` : 'dynamic';
      return [`${str(k.uri)} (${files})${describe({ name: frontmatter.name, description: frontmatter.description })}`];
    });
  if (s.toolSearch) lines.push(...searchLines(s.toolSearch));
  return lines.join('\n') + '\n';
}

/** Search mode: what clients list instead of the catalog, and the catalog by tag. */
function searchLines(search: SearchSurface): string[] {
  const own = [search.searchTool, search.callTool, ...(search.groupTool ? [search.groupTool] : [])];
  const lines = [
    '',
    `Search mode (${search.ranker}): clients list ${own.join(', ')}${search.pinned.length ? ` and ${search.pinned.join(', ')}` : ''}`,
  ];
  for (const [group, { about, tools }] of Object.entries(search.groups)) lines.push(`  group ${group} (${tools} tools) - ${about}`);
  const byTag = new Map<string, number>();
  for (const tool of search.catalog)
    for (const tag of tool.tags.length ? tool.tags : ['(no tag)']) byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
  lines.push(`  ${search.catalog.length} tools searched: ${[...byTag].map(([tag, n]) => `${tag} ${n}`).join(', ')}`);
  return lines;
}

/** A handler's policies, indented under it. */
function policyLines(s: Surface, key: string): string[] {
  return (s.policies[key] ?? []).map((line) => `  policy: ${line}`);
}

/** A value from the wire as text: a primitive as String prints it, an object or array as JSON (never "[object Object]"). */
function str(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function section(lines: string[], title: string, items: Json[], render: (item: Json) => string[]): void {
  lines.push('', `${title} (${items.length})`);
  for (const item of items) lines.push(...render(item).map((l) => `  ${l}`));
}

function describe(item: Json): string {
  const text = [item.title, item.description].filter((v) => typeof v === 'string' && v !== item.name);
  return text.length ? ` - ${text.join(': ')}` : '';
}

function schemaLines(label: string, schema: Json | undefined): string[] {
  const properties = (schema?.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema?.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return [`  ${label}: (none)`];
  return [
    `  ${label}:`,
    ...names.map(
      (n) =>
        `    ${n}${required.has(n) ? '' : '?'}: ${typeOf(properties[n])}${properties[n].description ? `  ${str(properties[n].description)}` : ''}`,
    ),
  ];
}

function typeOf(schema: Json): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'array') return `${typeOf((schema.items ?? {}) as Json)}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map(typeOf).join(' | ');
  return schema.$ref ? (str(schema.$ref).split('/').pop() ?? 'object') : 'any';
}
