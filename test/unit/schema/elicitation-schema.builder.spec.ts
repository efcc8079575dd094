import {
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { elicitationSchema } from '../../../src/schema/elicitation-schema.builder';
import { Field, McpDefinitionError } from '../../../src';

class Profile {
  @Field({ title: 'Name', default: 'John Doe' }) @IsString() @MaxLength(50) name!: string;
  @Field({ default: 30 }) @IsInt() @Min(0) @Max(150) age!: number;
  @Field({ default: 95.5 }) @IsNumber() score!: number;
  @IsOptional() @IsEmail() email?: string;
  @Field({ default: true }) @IsBoolean() verified!: boolean;
  @Field({ default: 'active' }) @IsIn(['active', 'inactive']) status!: string;
  @Field({ enumNames: ['Red', 'Green'] }) @IsIn(['r', 'g']) color!: string;
  @Field({ enumNames: ['Small', 'Large'], enumStyle: 'legacy' }) @IsIn(['s', 'l']) size!: string;
  @IsArray() @IsIn(['a', 'b', 'c'], { each: true }) letters!: string[];
  @Field({ enumNames: ['One', 'Two'] }) @IsArray() @IsIn(['1', '2'], { each: true }) numbers!: string[];
}

class Nested {
  @ValidateNested() inner!: Profile;
}
class BadNames {
  @Field({ enumNames: ['only one'] }) @IsIn(['a', 'b']) x!: string;
}

describe('elicitationSchema', () => {
  const schema = elicitationSchema(Profile) as { properties: Record<string, unknown>; required: string[] };

  it('derives primitives with defaults, titles and constraints, and no $schema', () => {
    expect(schema).not.toHaveProperty('$schema');
    expect(schema.properties.name).toEqual({ type: 'string', maxLength: 50, title: 'Name', default: 'John Doe' });
    expect(schema.properties.age).toEqual({ type: 'integer', minimum: 0, maximum: 150, default: 30 });
    expect(schema.properties.score).toEqual({ type: 'number', default: 95.5 });
    expect(schema.properties.email).toEqual({ type: 'string', format: 'email' });
    expect(schema.properties.verified).toEqual({ type: 'boolean', default: true });
    expect(schema.required).not.toContain('email');
  });

  it('emits untitled, titled and legacy single-select enums', () => {
    expect(schema.properties.status).toEqual({ type: 'string', enum: ['active', 'inactive'], default: 'active' });
    expect(schema.properties.color).toEqual({
      type: 'string',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    });
    expect(schema.properties.size).toEqual({ type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] });
  });

  it('emits untitled and titled multi-select enums', () => {
    expect(schema.properties.letters).toEqual({ type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } });
    expect(schema.properties.numbers).toEqual({
      type: 'array',
      items: {
        anyOf: [
          { const: '1', title: 'One' },
          { const: '2', title: 'Two' },
        ],
      },
    });
  });

  it('is built once per class', () => {
    expect(elicitationSchema(Profile)).toBe(schema);
  });

  it('refuses what a form cannot ask for', () => {
    expect(() => elicitationSchema(Nested)).toThrow(McpDefinitionError);
    expect(() => elicitationSchema(BadNames)).toThrow('enumNames has 1 names for 2 values');
  });

  it('asks for a type rule on a property whose type was not emitted (no decorator metadata)', () => {
    class Untyped {
      @IsOptional() nickname?: string;
    }
    Reflect.deleteMetadata('design:type', Untyped.prototype, 'nickname');
    expect(() => elicitationSchema(Untyped)).toThrow(McpDefinitionError);
    expect(() => elicitationSchema(Untyped)).toThrow(
      /Untyped\.nickname: its type is unknown, as no decorator metadata was emitted: give it a type rule \(@IsString\(\)/,
    );
  });
});
