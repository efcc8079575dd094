import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEnum, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, Field, McpContext, RequireScopes, resourceLink, text, Tool, ToolError } from '../../src';
import { NotesRepository } from './notes.repository';

export class AddNoteInput {
  @Field('A short title')
  @IsString()
  @Length(1, 80)
  title!: string;

  @Field('The note in Markdown')
  @IsString()
  @MaxLength(10_000)
  body!: string;

  @Field('Labels to file the note under')
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  tags?: string[];
}

export class NoteRef {
  @IsString() id!: string;
  @IsString() uri!: string;
}

export enum SortOrder {
  Newest = 'newest',
  Oldest = 'oldest',
}

export class SearchFilter {
  @Field('Only notes with this tag')
  @IsOptional()
  @IsString()
  tag?: string;
}

export class SearchInput {
  @Field('Text to look for in titles and bodies')
  @IsString()
  @Length(1, 200)
  query!: string;

  @Field({ description: 'Most results to return', default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;

  @IsOptional()
  @IsEnum(SortOrder)
  order?: SortOrder;

  @IsOptional()
  @ValidateNested()
  @Type(() => SearchFilter)
  filter?: SearchFilter;
}

export class ReindexInput {
  @Field({ description: 'How many batches to index', default: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  batches?: number;

  @Field({ description: 'Milliseconds per batch', default: 50 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  delayMs?: number;
}

export class ExportInput {
  @Field({ description: 'Milliseconds to wait before each note (to watch it stream)', default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(5_000)
  delayMs?: number;
}

export class NoteIdInput {
  @IsString() id!: string;
}

@injectable()
export class NotesTools {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({ description: 'Store a note', output: NoteRef, annotations: { idempotentHint: false, readOnlyHint: false } })
  async addNote(input: AddNoteInput, ctx: McpContext): Promise<NoteRef> {
    await ctx.log.info(`adding note "${input.title}"`, 'notes');
    const note = this.notes.add(input);
    return { id: note.id, uri: `notes://${note.id}` };
  }

  @Tool({ title: 'Search notes', description: 'Find notes whose title or body contains the query', annotations: { readOnlyHint: true } })
  search(input: SearchInput) {
    const q = input.query.toLowerCase();
    let hits = this.notes.list().filter((n) => `${n.title}\n${n.body}`.toLowerCase().includes(q));
    if (input.filter?.tag) hits = hits.filter((n) => n.tags.includes(input.filter!.tag!));
    if (input.order === SortOrder.Newest) hits.reverse();
    hits = hits.slice(0, input.limit ?? 10);
    if (hits.length === 0) return 'No notes match.';
    return hits.map((n) => resourceLink(`notes://${n.id}`, n.title, { mimeType: 'text/markdown' }));
  }

  @Tool({ description: 'Delete a note', annotations: { destructiveHint: true, idempotentHint: true } })
  @RequireScopes('notes:write')
  deleteNote(input: NoteIdInput) {
    if (!this.notes.delete(input.id)) throw new ToolError(`No note has id "${input.id}"`);
    return text(`Deleted ${input.id}`);
  }

  @Tool({
    description: 'Re-index every note, reporting progress; stops when cancelled',
    taskSupport: 'optional',
    immediateResponse: 'Re-indexing has started; the result will follow.',
  })
  async reindex(input: ReindexInput, ctx: McpContext) {
    const batches = input.batches ?? 5;
    for (let done = 1; done <= batches; done++) {
      await sleep(input.delayMs ?? 50, ctx.signal);
      await ctx.progress(done, batches, `indexed batch ${done}/${batches}`);
    }
    await ctx.log.debug(`re-indexed ${this.notes.list().length} notes`, 'notes');
    return `Re-indexed ${this.notes.list().length} notes in ${batches} batches`;
  }

  @Tool({
    description: 'Export every note as Markdown, one note at a time (streams its results when run as a task)',
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
  })
  async *exportNotes(input: ExportInput, ctx: McpContext) {
    for (const note of this.notes.list()) {
      if (ctx.signal.aborted) return;
      if (input.delayMs) await sleep(input.delayMs, ctx.signal);
      yield text(`# ${note.title}\n\n${note.body}`);
    }
  }

  @Tool({ description: 'How many notes there are', annotations: { readOnlyHint: true } })
  count(_: EmptyInput) {
    return { count: this.notes.list().length };
  }
}

/** Resolves after `ms`, or rejects with the abort reason (an Error) as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  // AbortSignal types its reason `any`: the request's signal aborts with an Error, and anything else is wrapped.
  const aborted = (): Error => (signal.reason instanceof Error ? signal.reason : new Error('Aborted', { cause: signal.reason }));
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
