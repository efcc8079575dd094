import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectExampleOverStdio, example } from '../../test/helpers/examples';

/** The database example as a user runs it (tsx, stdio, Postgres in a data directory), driven by the official SDK client. */
describe('examples/database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcpkit-shop-'));
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    ({ client, stderr } = await connectExampleOverStdio(example('database'), { env: { DATABASE_DIR: dataDir } }));
  }, 180_000);
  afterAll(async () => {
    await client?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('searches with bind parameters: an injection attempt is only a name that matches nothing', async () => {
    const found = await client.callTool({ name: 'searchProducts', arguments: { text: 'PAPER' } });
    expect(found.structuredContent).toEqual({ products: [{ id: 2, name: 'Graph paper pad', priceCents: 300, stock: 40 }] });
    const cheap = await client.callTool({ name: 'searchProducts', arguments: { text: '', maxPriceCents: 450 } });
    expect((cheap.structuredContent as { products: { name: string }[] }).products.map((p) => p.name)).toEqual([
      'Graph paper pad',
      'Mechanical pencil',
    ]);

    const hostile = await client.callTool({ name: 'searchProducts', arguments: { text: "'; DROP TABLE products; --" } });
    expect(hostile.structuredContent).toEqual({ products: [] });
    const all = await client.callTool({ name: 'searchProducts', arguments: { text: '' } });
    expect((all.structuredContent as { products: unknown[] }).products).toHaveLength(3);
  });

  it('places an order in one transaction, and refuses one that the stock cannot cover', async () => {
    const placed = await client.callTool({ name: 'placeOrder', arguments: { customerId: 1, productId: 2, quantity: 5 } });
    expect(placed.structuredContent).toEqual({ orderId: 3, totalCents: 1500, stockLeft: 35 });

    const tooMany = await client.callTool({ name: 'placeOrder', arguments: { customerId: 1, productId: 3, quantity: 4 } });
    expect(tooMany).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Only 3 in stock, 4 asked' }] });
    const invalid = await client.callTool({ name: 'placeOrder', arguments: { customerId: 1, productId: 3, quantity: 0 } });
    expect(invalid).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('quantity') }] });

    const orders = await client.callTool({ name: 'customerOrders', arguments: { email: 'ada@example.com' } });
    expect(orders.structuredContent).toEqual({
      orders: [
        { orderId: 3, product: 'Graph paper pad', quantity: 5, totalCents: 1500 },
        { orderId: 1, product: 'Slide rule', quantity: 1, totalCents: 2500 },
      ],
    });
  });

  it('lists one resource template per table beside the table template, and completes table names', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'db://customers/{id}',
      'db://orders/{id}',
      'db://products/{id}',
      'db://tables/{table}',
    ]);
    const tables = await client.complete({
      ref: { type: 'ref/resource', uri: 'db://tables/{table}' },
      argument: { name: 'table', value: '' },
    });
    expect(tables.completion.values).toEqual(['customers', 'orders', 'products']);
    const p = await client.complete({ ref: { type: 'ref/resource', uri: 'db://tables/{table}' }, argument: { name: 'table', value: 'p' } });
    expect(p.completion.values).toEqual(['products']);
    const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'db://orders/{id}' }, argument: { name: 'id', value: '' } });
    expect(ids.completion.values).toEqual(['1', '2', '3']);
  });

  it('reads a table and a row as JSON; an unknown table or row is not found', async () => {
    const table = await client.readResource({ uri: 'db://tables/products' });
    const body = JSON.parse((table.contents[0] as { text: string }).text);
    expect(body.columns).toContainEqual({ name: 'price_cents', type: 'integer', nullable: false });
    expect(body.rows).toHaveLength(3);

    const row = await client.readResource({ uri: 'db://customers/2' });
    expect(JSON.parse((row.contents[0] as { text: string }).text)).toEqual({ id: 2, name: 'Grace Hopper', email: 'grace@example.com' });

    await expect(client.readResource({ uri: 'db://tables/pg_user' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'db://customers/99' })).rejects.toMatchObject({ code: -32002 });
    // The variables class refuses a name that is not a plain identifier before any SQL runs.
    await expect(client.readResource({ uri: 'db://tables/x%22%3B%20drop' })).rejects.toMatchObject({ code: -32602 });
  });

  it('keeps its data in DATABASE_DIR across a restart', async () => {
    await client.close();
    ({ client, stderr } = await connectExampleOverStdio(example('database'), { env: { DATABASE_DIR: dataDir } }));
    const orders = await client.callTool({ name: 'customerOrders', arguments: { email: 'ada@example.com' } });
    expect((orders.structuredContent as { orders: unknown[] }).orders).toHaveLength(2);
    expect(stderr()).toContain('serving MCP over stdio');
  }, 180_000);
});
