import type { EngineCore, Tx } from '../core';
import { fail, notFound } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import type { Product, ProductCreate, ProductPatch, ProductQuery } from '../../shared/schemas/register';
import { typedText } from '../../shared/typed-text';
import { MAX_UNIT_PRICE, taxRateFromPercent, taxRateToPercent } from './money';
import { KIND, type ProductData } from './model';

/** The GTIN check digit rule (EAN-8, UPC-A, EAN-13, GTIN-14): weights 3,1,3,... from the right. */
export function gtinValid(code: string): boolean {
  if (!/^[0-9]{8}$|^[0-9]{12,14}$/.test(code)) return false;
  let sum = 0;
  for (let i = code.length - 2, w = 3; i >= 0; i--, w = w === 3 ? 1 : 3) sum += Number(code[i]) * w;
  return (10 - (sum % 10)) % 10 === Number(code[code.length - 1]);
}

/** A barcode as stored: UPC-A (12 digits) is kept as its EAN-13 form, so both scans find it. */
export function normalBarcode(code: string): string {
  return code.length === 12 ? `0${code}` : code;
}

export function productView(p: ProductData): Product {
  return { ...p, tax_rate: taxRateToPercent(p.tax_rate) };
}

export interface Catalog {
  list(query: ProductQuery): Promise<Product[]>;
  /** A page of list(): `next` is the `after` of the next page (null on the last one). */
  page(query: ProductQuery): Promise<{ products: Product[]; next: string | null }>;
  get(code: string): Promise<ProductData | undefined>;
  create(input: ProductCreate): Promise<Product>;
  update(code: string, patch: ProductPatch): Promise<Product>;
  /** A scanned or typed value: a product code, else a barcode. */
  findInTx(tx: Tx, scan: string): Promise<ProductData | undefined>;
  putInTx(tx: Tx, data: ProductData, created: boolean): Promise<void>;
}

/** A barcode must have a right check digit and belong to no other product; stored normalised. */
async function checkBarcode(tx: Tx, barcode: string | null | undefined, code: string): Promise<string | null> {
  if (barcode === null || barcode === undefined) return null;
  if (!gtinValid(barcode)) throw fail.invalid('invalid_barcode', `Barcode ${barcode} has a wrong check digit`, [{ field: 'barcode', message: 'check digit does not match' }]);
  const normal = normalBarcode(barcode);
  const taken = (await recordsByRef<ProductData>(tx, KIND.product, normal)).find((r) => r.data.code !== code);
  if (taken) throw fail.conflict('barcode_taken', `Barcode ${barcode} already belongs to product ${taken.data.code}`);
  return normal;
}

/**
 * Products whose description, code, barcode or category hold every word, by description (then
 * code); full-width forms match their ASCII ones. A page starts after the product `after` names.
 */
function searchProducts(all: ProductData[], query: Parameters<Catalog['list']>[0]): { products: ProductData[]; next: string | null } {
  const words = typedText(query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const category = query.category?.toLowerCase();
  const out = all.filter((p) => {
    if (!p.active && !query.include_inactive) return false;
    if (category && p.category.toLowerCase() !== category) return false;
    const hay = typedText(`${p.description} ${p.code} ${p.barcode ?? ''} ${p.category}`).toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  out.sort((a, b) => a.description.localeCompare(b.description) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  const from = query.after === undefined ? 0 : out.findIndex((p) => p.code === query.after) + 1;
  const limit = query.limit ?? 50;
  const products = out.slice(from, from + limit);
  return { products, next: from + limit < out.length ? products.at(-1)!.code : null };
}

export function createCatalog(core: EngineCore): Catalog {
  // Searches read every product: the catalog is kept in memory, refreshed after each change.
  let cache: ProductData[] | undefined;
  const all = async () => (cache ??= (await recordsOfKind<ProductData>(core, KIND.product)).map((r) => r.data));
  // A lane's catalog also changes by replication from its hub (engine/sync), not only through put.
  core.bus.subscribe((e) => {
    if (e.entity === KIND.product) cache = undefined;
  });

  const put = async (tx: Tx, data: ProductData, created: boolean) => {
    await putRecord(tx, KIND.product, data.code, data, {
      type: created ? 'pos_product.created' : 'pos_product.updated',
      entity: 'pos_product',
      key: data.code,
      data: { price_cents: data.price_cents, active: data.active },
    }, data.barcode ?? '');
    tx.afterCommit(() => {
      cache = undefined;
    });
  };

  return {
    async list(query) {
      return searchProducts(await all(), query).products.map(productView);
    },

    async page(query) {
      const { products, next } = searchProducts(await all(), query);
      return { products: products.map(productView), next };
    },

    async get(code) {
      return (await getRecord<ProductData>(core, KIND.product, code))?.data;
    },

    async create(input) {
      const taxRate = taxRateFromPercent(input.tax_rate);
      return core.mutate(async (tx) => {
        if (await getRecord(tx, KIND.product, input.code)) throw fail.conflict('product_exists', `Product ${input.code} already exists: change it with PATCH /api/pos/products/${input.code}`);
        const data: ProductData = {
          code: input.code,
          description: input.description.trim(),
          price_cents: input.price_cents,
          tax_rate: taxRate,
          category: input.category.trim(),
          barcode: await checkBarcode(tx, input.barcode, input.code),
          active: input.active ?? true,
          created_at: tx.at,
          updated_at: tx.at,
        };
        await put(tx, data, true);
        return productView(data);
      });
    },

    async update(code, patch) {
      const taxRate = patch.tax_rate === undefined ? undefined : taxRateFromPercent(patch.tax_rate);
      return core.mutate(async (tx) => {
        const existing = (await getRecord<ProductData>(tx, KIND.product, code))?.data;
        if (!existing) throw notFound('product_not_found', `No product ${code}`);
        const next: ProductData = {
          ...existing,
          ...(patch.description !== undefined ? { description: patch.description.trim() } : {}),
          ...(patch.price_cents !== undefined ? { price_cents: patch.price_cents } : {}),
          ...(taxRate !== undefined ? { tax_rate: taxRate } : {}),
          ...(patch.category !== undefined ? { category: patch.category.trim() } : {}),
          ...(patch.active !== undefined ? { active: patch.active } : {}),
          ...(patch.barcode !== undefined ? { barcode: await checkBarcode(tx, patch.barcode, code) } : {}),
          updated_at: tx.at,
        };
        if (next.price_cents > MAX_UNIT_PRICE) throw fail.invalid('invalid_price', 'price_cents is too large');
        await put(tx, next, false);
        return productView(next);
      });
    },

    async findInTx(tx, scan) {
      const value = scan.trim();
      const byCode = (await getRecord<ProductData>(tx, KIND.product, value))?.data ?? (await getRecord<ProductData>(tx, KIND.product, value.toUpperCase()))?.data;
      if (byCode) return byCode;
      if (/^[0-9]+$/.test(value) && gtinValid(value)) return (await recordsByRef<ProductData>(tx, KIND.product, normalBarcode(value)))[0]?.data;
      return undefined;
    },

    putInTx: put,
  };
}
