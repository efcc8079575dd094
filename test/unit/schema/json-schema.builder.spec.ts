import Ajv2020 from 'ajv/dist/2020';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsBoolean,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { Field } from '../../../src';
import { JsonSchemaBuilder } from '../../../src/schema/json-schema.builder';

enum Priority {
  Low = 'low',
  High = 'high',
}
enum Level {
  One = 1,
  Two = 2,
}

class Address {
  @Field('Street and number')
  @IsString()
  street!: string;

  @IsOptional()
  @Matches(/^[0-9]{5}$/)
  zip?: string;
}

class Item {
  @IsString() @Length(1, 20) sku!: string;
  @IsInt() @Min(1) @Max(99) quantity!: number;
}

class Order {
  @Field({ description: 'Who ordered', title: 'Customer' })
  @IsEmail()
  email!: string;

  @IsEnum(Priority) priority!: Priority;
  @IsOptional() @IsEnum(Level) level?: Level;
  @IsOptional() @IsIn(['a', 'b']) letter?: string;
  @IsNumber() @IsPositive() total!: number;
  @IsBoolean() gift!: boolean;

  @ValidateNested() @Type(() => Address) shipTo!: Address;

  @ValidateNested({ each: true }) @Type(() => Item) @ArrayMinSize(1) items!: Item[];

  @IsOptional() @IsString({ each: true }) @ArrayUnique() tags?: string[];

  @Field({ description: 'Notes for the courier', default: '' })
  @IsString()
  note?: string;
}

class TreeNode {
  @IsString() label!: string;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
}

describe('JsonSchemaBuilder', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('email', /@/);
  const schema = new JsonSchemaBuilder().build(Order);

  it('produces a valid JSON Schema 2020-12 document with a root object type', () => {
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(ajv.errors).toBeNull();
    expect(schema.type).toBe('object');
  });

  it('derives types, constraints, enums, nesting, arrays and required members', () => {
    expect(schema).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', title: 'Customer', description: 'Who ordered' },
        priority: { type: 'string', enum: ['low', 'high'] },
        level: { type: 'integer', enum: [1, 2] },
        letter: { type: 'string', enum: ['a', 'b'] },
        total: { type: 'number', exclusiveMinimum: 0 },
        gift: { type: 'boolean' },
        shipTo: {
          type: 'object',
          properties: { street: { type: 'string', description: 'Street and number' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
          required: ['street'],
        },
        items: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { sku: { type: 'string', minLength: 1, maxLength: 20 }, quantity: { type: 'integer', minimum: 1, maximum: 99 } },
            required: ['sku', 'quantity'],
          },
        },
        tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        note: { type: 'string', description: 'Notes for the courier', default: '' },
      },
      required: ['email', 'priority', 'total', 'gift', 'shipTo', 'items', 'note'],
    });
  });

  it('accepts documents that class-validator accepts and rejects the ones it rejects', () => {
    const validate = ajv.compile(schema);
    const good = {
      email: 'a@b.c',
      priority: 'high',
      total: 3.5,
      gift: false,
      shipTo: { street: 'Main 1' },
      items: [{ sku: 'x', quantity: 2 }],
      note: '',
    };
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, priority: 'urgent' })).toBe(false);
    expect(validate({ ...good, items: [] })).toBe(false);
    expect(validate({ ...good, items: [{ sku: 'x', quantity: 100 }] })).toBe(false);
    expect(validate({ ...good, shipTo: { zip: '12345' } })).toBe(false);
    expect(validate({ ...good, level: 3 })).toBe(false);
    const { email: _email, ...noEmail } = good;
    expect(validate(noEmail)).toBe(false);
  });

  it('emits a self-referencing class once under $defs', () => {
    const tree = new JsonSchemaBuilder().build(TreeNode);
    expect(ajv.validateSchema(tree)).toBe(true);
    expect(tree.properties).toEqual({
      label: { type: 'string' },
      children: { type: 'array', items: { $ref: '#/$defs/TreeNode' } },
    });
    expect(tree.$defs).toEqual({ TreeNode: expect.objectContaining({ type: 'object', required: ['label'] }) });
    const validate = ajv.compile(tree);
    expect(validate({ label: 'a', children: [{ label: 'b', children: [{ label: 'c' }] }] })).toBe(true);
    expect(validate({ label: 'a', children: [{ children: [] }] })).toBe(false);
  });
});
