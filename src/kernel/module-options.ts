import { metadataStore } from '../metadata/metadata-store';
import type { ClassType, Provider } from '../metadata/records';
import type { ApplicationOptions } from './application-options';

/**
 * Options of `@McpModule`: its providers and imports, plus any application option (those of the root
 * module apply; `McpApplication.create` overrides them). No index signature, so a misspelled option
 * fails to compile.
 */
export interface ModuleOptions extends ApplicationOptions {
  /** Classes holding tools, resources, prompts and completions, and services they depend on. */
  providers?: Provider[];
  /** Modules whose providers this module also serves (to serve a module under a prefix, see `mount` in `mcpkit/compose`). */
  imports?: ClassType[];
}

/** The options of an `@McpModule` class; undefined for any other class. */
export function moduleOptions(target: object): ModuleOptions | undefined {
  // @McpModule, the one writer of module records, takes ModuleOptions.
  return metadataStore.module(target);
}
