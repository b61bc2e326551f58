import type { Tx } from '../core';
import type { ProductData } from './model';

/**
 * The sample catalog of a new sandbox install: a café and general store, priced before tax.
 * Tax rates: 0% for basic groceries and baked goods, 5% for prepared drinks, 13% for everything
 * else. Barcodes are EAN-13 with valid check digits (test/register checks them).
 */
export const SAMPLE_PRODUCTS: ReadonlyArray<Pick<ProductData, 'code' | 'description' | 'price_cents' | 'category' | 'barcode'> & { tax: number }> = [
  { code: '1001', description: 'Drip coffee, medium', price_cents: 245, tax: 5, category: 'Café', barcode: '0629110010015' },
  { code: '1002', description: 'Cappuccino', price_cents: 425, tax: 5, category: 'Café', barcode: '0629110010022' },
  { code: '1003', description: 'Latte, oat milk', price_cents: 495, tax: 5, category: 'Café', barcode: '0629110010039' },
  { code: '1004', description: 'Green tea', price_cents: 275, tax: 5, category: 'Café', barcode: '0629110010046' },
  { code: '2001', description: 'Butter croissant', price_cents: 325, tax: 0, category: 'Bakery', barcode: '0629110020014' },
  { code: '2002', description: 'Sourdough loaf', price_cents: 750, tax: 0, category: 'Bakery', barcode: '0629110020021' },
  { code: '2003', description: 'Blueberry muffin', price_cents: 350, tax: 0, category: 'Bakery', barcode: '0629110020038' },
  { code: '2004', description: 'Cinnamon roll', price_cents: 395, tax: 0, category: 'Bakery', barcode: '0629110020045' },
  { code: '3001', description: 'Whole bean coffee, 340 g', price_cents: 1699, tax: 0, category: 'Grocery', barcode: '0629110030013' },
  { code: '3002', description: 'Earl Grey tea, 100 g', price_cents: 1250, tax: 0, category: 'Grocery', barcode: '0629110030020' },
  { code: '3003', description: 'Wildflower honey, 500 g', price_cents: 1195, tax: 0, category: 'Grocery', barcode: '0629110030037' },
  { code: '3004', description: 'Dark chocolate bar, 85%', price_cents: 449, tax: 13, category: 'Grocery', barcode: '0629110030044' },
  { code: '3005', description: 'Sparkling water, 500 ml', price_cents: 225, tax: 13, category: 'Grocery', barcode: '0629110030051' },
  { code: '3006', description: 'Oat milk, 1 L', price_cents: 499, tax: 0, category: 'Grocery', barcode: '0629110030068' },
  { code: '4001', description: 'Reusable cup, 12 oz', price_cents: 1800, tax: 13, category: 'Household', barcode: '0629110040012' },
  { code: '4002', description: 'French press, 8 cup', price_cents: 4499, tax: 13, category: 'Household', barcode: '0629110040029' },
  { code: '4003', description: 'Paper filters, 100 ct', price_cents: 699, tax: 13, category: 'Household', barcode: '0629110040036' },
  { code: '4004', description: 'Dish soap, 750 ml', price_cents: 549, tax: 13, category: 'Household', barcode: '0629110040043' },
  { code: '5001', description: 'Notebook, dotted A5', price_cents: 1495, tax: 13, category: 'Stationery', barcode: '0629110050011' },
  { code: '5002', description: 'Gel pen, black', price_cents: 299, tax: 13, category: 'Stationery', barcode: '0629110050028' },
  { code: '5003', description: 'Greeting card', price_cents: 595, tax: 13, category: 'Stationery', barcode: '0629110050035' },
  { code: '5004', description: 'Gift wrap, 3 m', price_cents: 799, tax: 13, category: 'Stationery', barcode: '0629110050042' },
];

export const SAMPLE_CASHIER_NAME = 'Sam Rivera';

export function sampleProducts(tx: Tx): ProductData[] {
  return SAMPLE_PRODUCTS.map(({ tax, ...p }) => ({ ...p, tax_rate: tax * 1000, active: true, created_at: tx.at, updated_at: tx.at }));
}

/** A 4-digit code from random hex (the cashier reads it from the first-start banner). */
export function sampleCode(secretHex: string): string {
  return String(Number.parseInt(secretHex.slice(0, 8), 16) % 10_000).padStart(4, '0');
}
