import { injectable } from 'tsyringe';
import { inject } from 'tsyringe';
import { Complete, CompletionContext, MCP_APPLICATION, McpApplication, McpError, Resource } from '../../src';
import { NotesRepository } from './notes.repository';

@injectable()
export class NotesResources {
  constructor(
    private readonly notes: NotesRepository,
    @inject(MCP_APPLICATION) app: McpApplication,
  ) {
    // Clients that subscribed to a note (or to the index) hear when it changes.
    notes.onChange((uri) => void app.notifyResourceUpdated(uri));
  }

  @Resource({
    uri: 'notes://index',
    name: 'index',
    title: 'All notes',
    mimeType: 'application/json',
    description: 'Ids and titles of every note',
  })
  index() {
    return this.notes.list().map(({ id, title, tags }) => ({ id, title, tags }));
  }

  @Resource({ uriTemplate: 'notes://{id}', name: 'note', title: 'A note', mimeType: 'text/markdown' })
  note({ id }: { id: string }) {
    const note = this.notes.get(id);
    if (!note) throw McpError.resourceNotFound(`notes://${id}`);
    return note.body;
  }

  @Resource({ uriTemplate: 'notes://tags/{tag}{?limit}', name: 'notesByTag', title: 'Notes with a tag', mimeType: 'application/json' })
  byTag({ tag, limit }: { tag: string; limit?: string }) {
    const hits = this.notes.list().filter((n) => n.tags.includes(tag));
    return hits.slice(0, limit ? Number(limit) : undefined).map((n) => n.id);
  }

  @Complete({ resource: 'notes://{id}', argument: 'id' })
  completeId(value: string) {
    return this.notes.ids().filter((id) => id.startsWith(value));
  }

  @Complete({ resource: 'notes://tags/{tag}{?limit}', argument: 'tag' })
  completeTag(value: string, ctx: CompletionContext) {
    void ctx;
    const tags = new Set(this.notes.list().flatMap((n) => n.tags));
    return [...tags].filter((t) => t.startsWith(value)).sort();
  }
}
