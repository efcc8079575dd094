import { IsIn, IsOptional, IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { Complete, CompletionContext, Field, McpError, Prompt, userMessage, assistantMessage } from '../../src';
import { NotesRepository } from './notes.repository';

const STYLES = ['brief', 'detailed', 'bullet-points'];

export class SummarizeArgs {
  @Field('Id of the note to summarize')
  @IsString()
  id!: string;

  @Field({ title: 'Style', description: 'How to summarize' })
  @IsOptional()
  @IsIn(STYLES)
  style?: string;
}

@injectable()
export class NotesPrompts {
  constructor(private readonly notes: NotesRepository) {}

  @Prompt({ name: 'summarize-note', title: 'Summarize a note', description: 'Ask the model to summarize one note' })
  summarize(args: SummarizeArgs) {
    const note = this.notes.get(args.id);
    if (!note) throw McpError.invalidParams(`No note has id "${args.id}"`);
    return [userMessage(`Summarize this note (${args.style ?? 'brief'}):\n\n${note.body}`), assistantMessage('Here is the summary:')];
  }

  @Complete({ prompt: 'summarize-note', argument: 'id' })
  completeId(value: string) {
    return this.notes.ids().filter((id) => id.startsWith(value));
  }

  /** Suggests styles; once an id is chosen, suggests "detailed" first for long notes. */
  @Complete({ prompt: 'summarize-note', argument: 'style' })
  completeStyle(value: string, ctx: CompletionContext) {
    const note = ctx.arguments.id ? this.notes.get(ctx.arguments.id) : undefined;
    const ordered = note && note.body.length > 40 ? ['detailed', ...STYLES.filter((s) => s !== 'detailed')] : STYLES;
    return ordered.filter((s) => s.startsWith(value));
  }
}
