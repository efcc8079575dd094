import { McpModule } from '../../src';
import { NotesAssistant } from './notes.assistant';
import { NotesPrompts } from './notes.prompts';
import { NotesRepository } from './notes.repository';
import { NotesResources } from './notes.resources';
import { NotesTools } from './notes.tools';
import { NotesTableView, NotesViewTools } from './notes.view';

@McpModule({
  server: {
    name: 'notes',
    version: '1.0.0',
    title: 'Notes',
    instructions: 'Keeps notes. Use search to find them and notes://{id} to read one.',
  },
  providers: [NotesRepository, NotesTools, NotesResources, NotesPrompts, NotesAssistant, NotesTableView, NotesViewTools],
})
export class AppModule {}
