import { readFileSync } from 'node:fs';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsString, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, Field, Tool, ToolError, View } from '../../src';
import { NotesRepository } from './notes.repository';

export class NoteRow {
  @IsString() id!: string;
  @IsString() title!: string;
  @IsArray() @IsString({ each: true }) tags!: string[];
  @IsBoolean() pinned!: boolean;
}

/** What the notes table shows: its `structuredContent` feeds the view, its JSON is the text fallback. */
export class NotesTable {
  @IsArray() @ValidateNested({ each: true }) @Type(() => NoteRow) notes!: NoteRow[];
}

export class PinInput {
  @Field('Id of the note to pin or unpin') @IsString() id!: string;
}

/**
 * The ext-apps `App` class (the view side of MCP Apps), from the package's self-contained ESM bundle,
 * as a script that defines `ExtApps` (its exports) instead of exporting them: inlined into the view's
 * HTML, so the view loads nothing from the network.
 */
function extAppsScript(): string {
  const bundle = readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
  const match = /export\s*\{([^}]*)\};?\s*$/.exec(bundle);
  if (!match) throw new Error('@modelcontextprotocol/ext-apps/app-with-deps does not end with an export list');
  const entries = match[1].split(',').map((spec) => {
    const [local, exported = local] = spec.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported)}:${local}`;
  });
  return `${bundle.slice(0, match.index)}\nconst ExtApps={${entries.join(',')}};\n`.replace(/<\/script/gi, '<\\/script');
}

/** The view's own script: renders the table from a tool result; a click on a row pins the note through the host. */
const VIEW_SCRIPT = `
const { App } = ExtApps;
const app = new App({ name: 'notes-table', version: '1.0.0' });
const rows = document.querySelector('tbody');
const status = document.getElementById('status');

function render(result) {
  const notes = (result.structuredContent && result.structuredContent.notes) || [];
  rows.replaceChildren(...notes.map((note) => {
    const tr = document.createElement('tr');
    tr.dataset.id = note.id;
    for (const value of [note.pinned ? '\\u2605' : '', note.id, note.title, note.tags.join(', ')]) {
      const td = document.createElement('td');
      td.textContent = value;
      tr.append(td);
    }
    tr.addEventListener('click', () => togglePin(note.id));
    return tr;
  }));
}

async function togglePin(id) {
  status.textContent = 'Pinning ' + id + '\\u2026';
  try {
    const result = await app.callServerTool({ name: 'togglePin', arguments: { id } });
    if (result.isError) throw new Error(result.content.map((c) => c.text).join(' '));
    render(result);
    status.textContent = 'Toggled the pin of ' + id;
  } catch (error) {
    status.textContent = 'Could not pin ' + id + ': ' + error.message;
  }
}

app.ontoolresult = render;
await app.connect();
status.textContent = 'Click a note to pin it';
`;

function notesTableHtml(): string {
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>Notes</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 8px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #ddd; }
  tbody tr { cursor: pointer; }
  tbody tr:hover { background: #f4f4f4; }
</style>
</head>
<body>
<table>
  <thead><tr><th></th><th>Id</th><th>Title</th><th>Tags</th></tr></thead>
  <tbody></tbody>
</table>
<p id="status">Loading\u2026</p>
<script type="module">
${extAppsScript()}
${VIEW_SCRIPT}
</script>
</body>
</html>
`;
}

/** The notes as an HTML table (MCP Apps view); its `App` script is inlined, so no CSP domains are needed. */
@View({
  uri: 'ui://notes/table',
  html: notesTableHtml,
  title: 'Notes table',
  description: 'Every note in a table; click one to pin it',
  prefersBorder: true,
})
export class NotesTableView {}

/** Tools drawn by the notes table: `showNotes` for everyone, `togglePin` only for the view (visibility `app`). */
@injectable()
export class NotesViewTools {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({
    title: 'Show notes',
    description: 'Show every note in a table (an interactive view where the host supports MCP Apps)',
    ui: NotesTableView,
    output: NotesTable,
    annotations: { readOnlyHint: true },
  })
  showNotes(_: EmptyInput): NotesTable {
    return this.table();
  }

  @Tool({
    description: 'Pin a note, or unpin a pinned one; returns the table',
    ui: { view: NotesTableView, visibility: ['app'] },
    output: NotesTable,
    annotations: { idempotentHint: false },
  })
  togglePin(input: PinInput): NotesTable {
    if (!this.notes.togglePin(input.id)) throw new ToolError(`No note has id "${input.id}"`);
    return this.table();
  }

  private table(): NotesTable {
    return { notes: this.notes.list().map(({ id, title, tags }) => ({ id, title, tags, pinned: this.notes.isPinned(id) })) };
  }
}
