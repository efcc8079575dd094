/** A tool added to a search index that already holds a tool of that name: replace it instead. */
export class ToolAlreadyIndexedError extends Error {
  constructor(readonly toolName: string) {
    super(`Tool "${toolName}" is already in the search index: replace it, or remove it first`);
    this.name = new.target.name;
  }
}
