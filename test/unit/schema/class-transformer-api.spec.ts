import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'class-transformer';
import { IsArray, IsString, ValidateNested } from 'class-validator';
import { JsonSchemaBuilder } from '../../../src/schema/json-schema.builder';
import { transformedClass } from '../../../src/schema/nested-type';

const SRC = join(__dirname, '..', '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

class Leaf {
  @IsString() name!: string;
}
class Holder {
  @IsArray() @ValidateNested({ each: true }) @Type(() => Leaf) leaves!: Leaf[];
  @ValidateNested() @Type(() => Leaf) one!: Leaf;
  @IsString() plain!: string;
}

/*
 * class-transformer's metadata storage is private (`class-transformer/cjs/storage`): a path import
 * reads the CommonJS copy only, while a bundler or an ESM app may load its esm5/esm2015 build, whose
 * @Type records live elsewhere. mcpkit learns @Type through the public plainToInstance; one module,
 * src/validation/validate-input.ts, reads the storage to spare a server's first call the
 * transformer's compilation, and trusts it only once the imported @Type is found in it (a second copy
 * is refused: test/unit/validation/transformer-plan.spec.ts).
 */
describe('class-transformer is used through its public API', () => {
  it('no source file imports a class-transformer internal path but the one that checks the storage it reads', () => {
    const offenders = sources(SRC).filter((f) =>
      /from ['"]class-transformer\/|require\(['"]class-transformer\//.test(readFileSync(f, 'utf8')),
    );
    expect(offenders).toEqual([join(SRC, 'validation', 'validate-input.ts')]);
  });

  it('finds @Type on single values and arrays through plainToInstance', () => {
    expect(transformedClass(Holder, 'leaves', true)).toBe(Leaf);
    expect(transformedClass(Holder, 'one', false)).toBe(Leaf);
    expect(transformedClass(Holder, 'plain', false)).toBeUndefined();
  });

  it('builds the nested schema from @Type', () => {
    const schema = new JsonSchemaBuilder().build(Holder) as { properties: Record<string, { items?: unknown; required?: string[] }> };
    expect(schema.properties.leaves.items).toEqual({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    expect(schema.properties.one.required).toEqual(['name']);
  });
});
