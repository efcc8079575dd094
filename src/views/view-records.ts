import type { ViewOptions } from './view.types';

const views = new WeakMap<object, ViewOptions>();

/** Where `@View` keeps its options: by class, read by the registry builder. */
export const viewRecords = {
  set(cls: object, options: ViewOptions): void {
    views.set(cls, options);
  },
  get(cls: object): ViewOptions | undefined {
    return views.get(cls);
  },
};
