import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { Field, McpContext, Tool, ToolError } from 'mcpkit';
import { RootsGuard } from './roots.guard';

/** Largest file `readFile` returns whole. */
const MAX_READ_BYTES = 1024 * 1024;

export class PathInput {
  @Field('An absolute path, or a path relative to the first root') @IsString() @Length(1, 4096) path!: string;
}

export class WriteFileInput extends PathInput {
  @Field('The text to write (UTF-8)') @IsString() @MaxLength(MAX_READ_BYTES) content!: string;
  @Field('Create missing parent directories') @IsOptional() @IsBoolean() createDirectories?: boolean;
}

export class RootDir {
  @IsString() path!: string;
  @IsString() uri!: string;
}

export class RootList {
  @IsArray() @ValidateNested({ each: true }) @Type(() => RootDir) roots!: RootDir[];
}

export class Entry {
  @IsString() name!: string;
  /** A link is listed as one, not followed: reading through it is checked like any other path. */
  @IsIn(['file', 'directory', 'symlink', 'other']) type!: 'file' | 'directory' | 'symlink' | 'other';
  @IsOptional() @IsInt() size?: number;
}

export class Listing {
  @IsString() path!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Entry) entries!: Entry[];
}

/** Every tool resolves its path through RootsGuard first: nothing outside the client's roots is read or written. */
@injectable()
export class FilesTools {
  @Tool({ description: 'Lists the directories the client shared', input: null, output: RootList, annotations: { readOnlyHint: true } })
  async listRoots(ctx: McpContext): Promise<RootList> {
    const roots = await RootsGuard.roots(ctx);
    return { roots: roots.map((path) => ({ path, uri: pathToFileURL(path).href })) };
  }

  @Tool({ description: 'Lists a directory', input: PathInput, output: Listing, annotations: { readOnlyHint: true } })
  async listDirectory(input: PathInput, ctx: McpContext): Promise<Listing> {
    const path = await RootsGuard.resolve(ctx, input.path);
    const dirents = await readdir(path, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      throw new ToolError(error.code === 'ENOTDIR' ? `${input.path} is not a directory` : `Cannot list ${input.path} (${error.code})`);
    });
    const entries = await Promise.all(
      dirents
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(async (d): Promise<Entry> => {
          if (d.isDirectory()) return { name: d.name, type: 'directory' };
          if (d.isSymbolicLink()) return { name: d.name, type: 'symlink' };
          if (d.isFile()) return { name: d.name, type: 'file', size: (await stat(join(path, d.name))).size };
          return { name: d.name, type: 'other' };
        }),
    );
    return { path, entries };
  }

  @Tool({ description: 'Reads a text file (UTF-8, at most 1 MiB)', input: PathInput, annotations: { readOnlyHint: true } })
  async readFile(input: PathInput, ctx: McpContext): Promise<string> {
    const path = await RootsGuard.resolve(ctx, input.path);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) throw new ToolError(`${input.path} is not a file`);
    if (info.size > MAX_READ_BYTES) throw new ToolError(`${input.path} has ${info.size} bytes, more than the 1 MiB this tool reads`);
    return readFile(path, 'utf8');
  }

  @Tool({ description: 'Writes a text file, replacing it if it exists', input: WriteFileInput, annotations: { destructiveHint: true } })
  async writeFile(input: WriteFileInput, ctx: McpContext): Promise<string> {
    const path = await RootsGuard.resolve(ctx, input.path);
    if (input.createDirectories) await mkdir(dirname(path), { recursive: true });
    await writeFile(path, input.content, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ToolError(`Cannot write ${input.path} (${error.code})`);
    });
    return `Wrote ${Buffer.byteLength(input.content)} bytes to ${path}`;
  }
}
