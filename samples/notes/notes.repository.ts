import { injectable } from 'tsyringe';

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
}

/** An in-memory note store, one per application (providers are application singletons). */
@injectable()
export class NotesRepository {
  private readonly notes = new Map<string, Note>();
  private readonly listeners = new Set<(uri: string) => void>();
  private readonly pinned = new Set<string>();
  private nextId = 1;

  /** Calls `listener` with the URI of every resource that changes. */
  onChange(listener: (uri: string) => void): void {
    this.listeners.add(listener);
  }

  constructor() {
    this.add({ title: 'Welcome', body: '# Welcome\n\nThis server keeps notes.', tags: ['intro'] });
    this.add({ title: 'Groceries', body: '- milk\n- bread', tags: ['home'] });
    this.add({ title: 'Release plan', body: 'Ship mcpkit 0.1 on Friday.', tags: ['work', 'planning'] });
  }

  add(input: { title: string; body: string; tags?: string[] }): Note {
    const note: Note = { id: `note-${this.nextId++}`, title: input.title, body: input.body, tags: input.tags ?? [] };
    this.notes.set(note.id, note);
    this.changed(note.id);
    return note;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  /** Pins an unpinned note and unpins a pinned one; false when there is no such note. */
  togglePin(id: string): boolean {
    if (!this.notes.has(id)) return false;
    if (!this.pinned.delete(id)) this.pinned.add(id);
    return true;
  }

  isPinned(id: string): boolean {
    return this.pinned.has(id);
  }

  delete(id: string): boolean {
    this.pinned.delete(id);
    const deleted = this.notes.delete(id);
    if (deleted) this.changed(id);
    return deleted;
  }

  private changed(id: string): void {
    for (const listener of this.listeners) {
      listener('notes://index');
      listener(`notes://${id}`);
    }
  }

  list(): Note[] {
    return [...this.notes.values()];
  }

  ids(): string[] {
    return [...this.notes.keys()];
  }
}
