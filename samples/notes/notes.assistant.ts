import { IsBoolean, IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, Field, McpContext, Tool, ToolError } from '../../src';
import { NotesRepository } from './notes.repository';

export class NoteId {
  @Field('Id of the note') @IsString() id!: string;
}

/** The form the user fills before notes are archived. */
export class ConfirmArchive {
  @Field({ title: 'Archive it?', description: 'Tick to archive the note', default: false }) @IsBoolean() confirm!: boolean;
}

/** Tools that ask the client for help: its model (sampling), its user (elicitation), its roots. */
@injectable()
export class NotesAssistant {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({ description: "Summarize a note with the client's model", annotations: { readOnlyHint: true, openWorldHint: true } })
  async summarize(input: NoteId, ctx: McpContext) {
    const note = this.notes.get(input.id);
    if (!note) throw new ToolError(`No note has id "${input.id}"`);
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize in one sentence:\n\n${note.body}` } }],
      maxTokens: 200,
    });
    const content = answer.content as { type: string; text?: string };
    return content.type === 'text' ? `Summary (${answer.model}): ${content.text}` : 'The model answered without text';
  }

  @Tool({
    description: 'Archive a note after the user confirms (as a task, it waits in input_required)',
    annotations: { destructiveHint: true },
    taskSupport: 'optional',
  })
  async archive(input: NoteId, ctx: McpContext) {
    const note = this.notes.get(input.id);
    if (!note) throw new ToolError(`No note has id "${input.id}"`);
    const answer = await ctx.elicitForm(`Archive "${note.title}"?`, ConfirmArchive);
    if (answer.action !== 'accept' || !answer.content?.confirm) return `Kept ${note.id} (${answer.action})`;
    this.notes.delete(note.id);
    return `Archived ${note.id}`;
  }

  @Tool({ description: "List the client's workspace roots", annotations: { readOnlyHint: true } })
  async workspaceRoots(_: EmptyInput, ctx: McpContext) {
    const roots = await ctx.roots();
    return roots.length === 0 ? 'No roots' : roots.map((r) => `${r.name ?? r.uri}: ${r.uri}`).join('\n');
  }
}
