import { PGlite } from '@electric-sql/pglite';
import { IsString, Matches } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Complete, McpError, Resource, type McpApplication } from 'mcpkit';

export class TableRef {
  @IsString() @Matches(/^[a-z_][a-z0-9_]*$/) table!: string;
}

interface Column {
  name: string;
  type: string;
  nullable: boolean;
}

/** The tables of the `public` schema, from the catalog: the only names ever placed in SQL text. */
async function tableNames(db: PGlite, prefix = ''): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND starts_with(table_name, $1)
     ORDER BY table_name`,
    [prefix],
  );
  return rows.map((r) => r.name);
}

/** A table or column name as a quoted SQL identifier. Identifiers cannot be bind parameters. */
function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `db://tables/{table}`: any table's columns and first rows, with completion of table names. */
@injectable()
export class TableResources {
  constructor(@inject(PGlite) private readonly db: PGlite) {}

  @Resource({
    uriTemplate: 'db://tables/{table}',
    name: 'table',
    description: "A table's columns and its first 50 rows",
    mimeType: 'application/json',
    input: TableRef,
  })
  async table({ table }: TableRef): Promise<{ table: string; columns: Column[]; rows: unknown[] }> {
    if (!(await tableNames(this.db, table)).includes(table)) throw McpError.resourceNotFound(`db://tables/${table}`);
    const { rows: columns } = await this.db.query<Column>(
      `SELECT column_name AS name, data_type AS type, is_nullable = 'YES' AS nullable
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    const { rows } = await this.db.query(`SELECT * FROM ${identifier(table)} ORDER BY 1 LIMIT 50`);
    return { table, columns, rows };
  }

  @Complete({ resource: 'db://tables/{table}', argument: 'table' })
  tables(value: string): Promise<string[]> {
    return tableNames(this.db, value);
  }
}

/**
 * One resource template per table, `db://<table>/{id}`, reading a row by its primary key; the
 * catalog is read once at startup. Completion of `{id}` offers the keys that start with what was typed.
 */
export async function registerRowResources(app: McpApplication, db: PGlite): Promise<string[]> {
  const { rows: keys } = await db.query<{ table: string; column: string }>(
    `SELECT tc.table_name AS table, min(kcu.column_name) AS column
     FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
     WHERE tc.table_schema = 'public' AND tc.constraint_type = 'PRIMARY KEY'
     GROUP BY tc.table_name HAVING count(*) = 1 ORDER BY tc.table_name`,
  );
  for (const { table, column } of keys) {
    const key = `${identifier(column)}::text`;
    app.addResource({
      uriTemplate: `db://${table}/{id}`,
      name: `${table} row`,
      description: `One row of ${table}, by ${column}`,
      mimeType: 'application/json',
      handler: async ({ id }) => {
        const { rows } = await db.query(`SELECT * FROM ${identifier(table)} WHERE ${key} = $1`, [id]);
        if (rows.length === 0) throw McpError.resourceNotFound(`db://${table}/${id}`);
        return rows[0];
      },
      complete: {
        id: async (value) => {
          const { rows } = await db.query<{ id: string }>(
            `SELECT ${key} AS id FROM ${identifier(table)} WHERE starts_with(${key}, $1) ORDER BY ${identifier(column)} LIMIT 100`,
            [value],
          );
          return rows.map((r) => r.id);
        },
      },
    });
  }
  return keys.map((k) => k.table);
}
