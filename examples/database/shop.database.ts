import { PGlite } from '@electric-sql/pglite';

/**
 * Opens the shop's Postgres (PGlite: Postgres compiled to WebAssembly, running inside this process).
 * With a directory the data survives restarts; without one it lives in memory. The tables are created
 * and filled with a few rows the first time.
 */
export async function openShopDatabase(dataDir?: string): Promise<PGlite> {
  const db = await PGlite.create(dataDir);
  await db.exec(`
    CREATE TABLE IF NOT EXISTS customers (
      id serial PRIMARY KEY,
      name text NOT NULL,
      email text NOT NULL UNIQUE
    );
    CREATE TABLE IF NOT EXISTS products (
      id serial PRIMARY KEY,
      name text NOT NULL,
      price_cents integer NOT NULL CHECK (price_cents >= 0),
      stock integer NOT NULL CHECK (stock >= 0)
    );
    CREATE TABLE IF NOT EXISTS orders (
      id serial PRIMARY KEY,
      customer_id integer NOT NULL REFERENCES customers(id),
      product_id integer NOT NULL REFERENCES products(id),
      quantity integer NOT NULL CHECK (quantity > 0),
      placed_at timestamptz NOT NULL DEFAULT now()
    );
  `);
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM customers');
  if (rows[0].n === 0) {
    await db.exec(`
      INSERT INTO customers (name, email) VALUES ('Ada Lovelace', 'ada@example.com'), ('Grace Hopper', 'grace@example.com');
      INSERT INTO products (name, price_cents, stock) VALUES
        ('Mechanical pencil', 450, 120), ('Graph paper pad', 300, 40), ('Slide rule', 2500, 3);
      INSERT INTO orders (customer_id, product_id, quantity) VALUES (1, 3, 1), (2, 1, 10);
    `);
  }
  return db;
}
