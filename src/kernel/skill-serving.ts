import type * as Chokidar from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { Contribution } from '../registry/contribution';
import type { SkillCatalog, SkillDefinition } from '../skills/skill-catalog';
import type { ServerLogger } from './server-logger';

/** What serving skills takes from the application. */
export interface SkillServingDeps {
  readonly catalog: SkillCatalog;
  /** Where the files' resources go: the application's definitions. */
  readonly definitions: { contribute(source: string, contribution: Contribution | undefined): void };
  readonly engine: { capabilitiesChanged(): void };
  readonly logger: ServerLogger;
  /** Read the folders again when they change. */
  readonly watch: boolean;
}

/** The registry source the skills' files are contributed under. */
const SOURCE = 'skills';
/** Edits usually come in bursts (an editor's save, a checkout): the folders are read again once they settle. */
const SETTLE_MS = 100;

/**
 * Serves the application's skills: reads the skill folders at startup, contributes every skill's files
 * to the registry (resources/list and resources/read serve them), and reads the folders again when
 * their files change, so that entries and digests follow the edits.
 */
export class SkillServing {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly parts: SkillServingDeps) {}

  /** Reads the folders (a skill that breaks a rule fails the start, naming it) and starts watching them. */
  async start(): Promise<void> {
    const { catalog, watch } = this.parts;
    if (catalog.folders.length > 0) await catalog.load();
    // Skills from folders, and those of @Skill methods added at bootstrap.
    if (catalog.configured) this.publish();
    if (watch && catalog.folders.length > 0) await this.watch(catalog.folders);
  }

  add(definition: SkillDefinition): void {
    const { uri } = this.parts.catalog.add(definition).entry;
    try {
      this.publish();
    } catch (error) {
      // Its files collide with resources served already: the skill is not served.
      this.parts.catalog.remove(uri);
      throw error;
    }
  }

  remove(uri: string): boolean {
    if (!this.parts.catalog.remove(uri)) return false;
    this.publish();
    return true;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    await this.reading;
  }

  private publish(): void {
    const { definitions, engine, catalog } = this.parts;
    definitions.contribute(SOURCE, catalog.contribution());
    engine.capabilitiesChanged();
  }

  private async watch(folders: string[]): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { watch } = require('chokidar') as typeof Chokidar;
    const watcher = (this.watcher = watch(folders, { ignoreInitial: true }));
    watcher.on('all', () => {
      clearTimeout(this.timer);
      // reread never rejects: a failure is logged there.
      this.timer = setTimeout(() => {
        this.reading = this.reread();
      }, SETTLE_MS);
    });
    watcher.on('error', (error) => this.parts.logger.error('Could not watch the skill folders', error));
    await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  }

  /** Reads the folders again; a skill that now breaks a rule is reported and the previous skills stay served. */
  private async reread(): Promise<void> {
    await this.reading;
    try {
      await this.parts.catalog.load();
      this.publish();
    } catch (error) {
      this.parts.logger.error('The skill folders changed, but could not be served as they are now; the previous skills stay served', error);
    }
  }
}
