import { PGlite } from '@electric-sql/pglite';
import { Type } from 'class-transformer';
import { IsArray, IsEmail, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Field, Tool, ToolError } from 'mcpkit';

export class SearchProductsInput {
  @Field('Part of the product name, any case') @IsString() @Length(0, 100) text!: string;
  @Field('Only products at this price or below, in cents') @IsOptional() @IsInt() @Min(0) maxPriceCents?: number;
}

export class Product {
  @IsInt() id!: number;
  @IsString() name!: string;
  @IsInt() priceCents!: number;
  @IsInt() stock!: number;
}

export class ProductList {
  @IsArray() @ValidateNested({ each: true }) @Type(() => Product) products!: Product[];
}

export class CustomerOrdersInput {
  @Field("The customer's email address") @IsEmail() email!: string;
}

export class OrderLine {
  @IsInt() orderId!: number;
  @IsString() product!: string;
  @IsInt() quantity!: number;
  @IsInt() totalCents!: number;
}

export class OrderList {
  @IsArray() @ValidateNested({ each: true }) @Type(() => OrderLine) orders!: OrderLine[];
}

export class PlaceOrderInput {
  @IsInt() @Min(1) customerId!: number;
  @IsInt() @Min(1) productId!: number;
  @IsInt() @Min(1) @Max(1000) quantity!: number;
}

export class OrderPlaced {
  @IsInt() orderId!: number;
  @IsInt() totalCents!: number;
  @IsInt() stockLeft!: number;
}

/**
 * Each tool is one parameterized statement: the model's values travel as bind parameters ($1, $2…),
 * never inside the SQL text, so a value such as `'; DROP TABLE products; --` is only a strange
 * product name to search for.
 */
@injectable()
export class ShopTools {
  constructor(@inject(PGlite) private readonly db: PGlite) {}

  @Tool({
    description: 'Searches the products by name and, optionally, maximum price',
    input: SearchProductsInput,
    output: ProductList,
    annotations: { readOnlyHint: true },
  })
  async searchProducts(input: SearchProductsInput): Promise<ProductList> {
    const { rows } = await this.db.query<Product>(
      `SELECT id, name, price_cents AS "priceCents", stock FROM products
       WHERE strpos(lower(name), lower($1)) > 0 AND ($2::int IS NULL OR price_cents <= $2::int)
       ORDER BY name`,
      [input.text, input.maxPriceCents ?? null],
    );
    return { products: rows };
  }

  @Tool({
    description: "Lists a customer's orders, newest first",
    input: CustomerOrdersInput,
    output: OrderList,
    annotations: { readOnlyHint: true },
  })
  async customerOrders(input: CustomerOrdersInput): Promise<OrderList> {
    const { rows } = await this.db.query<OrderLine>(
      `SELECT o.id AS "orderId", p.name AS product, o.quantity, o.quantity * p.price_cents AS "totalCents"
       FROM orders o JOIN customers c ON c.id = o.customer_id JOIN products p ON p.id = o.product_id
       WHERE c.email = $1 ORDER BY o.placed_at DESC, o.id DESC`,
      [input.email],
    );
    return { orders: rows };
  }

  @Tool({
    description: 'Places an order: takes the quantity from stock and records the order, both or neither',
    input: PlaceOrderInput,
    output: OrderPlaced,
    annotations: { destructiveHint: false, idempotentHint: false },
  })
  async placeOrder(input: PlaceOrderInput): Promise<OrderPlaced> {
    return this.db.transaction(async (tx) => {
      const customer = await tx.query('SELECT 1 FROM customers WHERE id = $1', [input.customerId]);
      if (customer.rows.length === 0) throw new ToolError(`No customer with id ${input.customerId}`);
      const taken = await tx.query<{ priceCents: number; stock: number }>(
        'UPDATE products SET stock = stock - $2 WHERE id = $1 AND stock >= $2 RETURNING price_cents AS "priceCents", stock',
        [input.productId, input.quantity],
      );
      if (taken.rows.length === 0) {
        const product = await tx.query<{ stock: number }>('SELECT stock FROM products WHERE id = $1', [input.productId]);
        throw new ToolError(
          product.rows.length === 0
            ? `No product with id ${input.productId}`
            : `Only ${product.rows[0].stock} in stock, ${input.quantity} asked`,
        );
      }
      const order = await tx.query<{ id: number }>(
        'INSERT INTO orders (customer_id, product_id, quantity) VALUES ($1, $2, $3) RETURNING id',
        [input.customerId, input.productId, input.quantity],
      );
      const { priceCents, stock } = taken.rows[0];
      return { orderId: order.rows[0].id, totalCents: priceCents * input.quantity, stockLeft: stock };
    });
  }
}
