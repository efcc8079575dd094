import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError, type McpContext } from 'mcpkit';

/**
 * Where a path really leads, bounded by the client's roots. The roots are asked for on every call
 * (`ctx.roots()`, a `roots/list` request to the client), so a change the client makes applies at once.
 */
export class RootsGuard {
  /** The real directories of the client's `file://` roots (symlinks resolved; roots that do not exist are left out). */
  static async roots(ctx: McpContext): Promise<string[]> {
    const dirs: string[] = [];
    for (const root of await ctx.roots()) {
      if (!root.uri.startsWith('file://')) continue;
      const real = await realpath(fileURLToPath(root.uri)).catch(() => undefined);
      if (real) dirs.push(real);
    }
    if (dirs.length === 0) throw new ToolError('The client shares no directory: add a root to give this server access to one');
    return dirs;
  }

  /**
   * The real path of `path` (absolute, or relative to the first root), or a ToolError when it lies
   * outside every root. `..` is resolved first; then every symlink on the way, the last component
   * included, so a link inside a root that points outside it is refused too. A path that does not exist
   * yet (a file to create) is checked through its deepest existing ancestor.
   */
  static async resolve(ctx: McpContext, path: string): Promise<string> {
    const roots = await RootsGuard.roots(ctx);
    const wanted = resolve(roots[0], path);
    const real = await realTarget(wanted);
    if (!roots.some((root) => inside(root, real))) {
      throw new ToolError(`Access denied: ${path} is outside the directories the client shared (${roots.join(', ')})`);
    }
    return real;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** realpath for a path whose last components may not exist yet. */
async function realTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // A dangling symlink is ENOENT for realpath but exists: writing through it would leave the root.
    if (
      await lstat(path).then(
        (s) => s.isSymbolicLink(),
        () => false,
      )
    )
      throw new ToolError(`Access denied: ${path} is a dangling link`);
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await realTarget(parent), basename(path));
  }
}
