import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, notFound } from '../errors';
import type { Gateway } from '../gateway';
import type { Lanes } from '../lanes';
import type { Orders } from '../orders';
import type { GiftCards } from '../wallets/gift-cards';
import type { HubGift } from '../sync/hub-gift-cards';
import type { InstallKeys } from '../security/install-keys';
import { getRecord, putRecord, recordsOfKind } from '../records';
import type {
  AddLine,
  Cashier,
  CashierCreate,
  CashierPatch,
  CashierWithCode,
  LinePatch,
  Product,
  ProductCreate,
  ProductPatch,
  ProductQuery,
  Receipt,
  RefundInput,
  Register as RegisterView,
  RegisterReport,
  RegisterSettings,
  Sale,
  SaleStart,
  SettingsPatch,
  SettleInput,
  Shift,
  TenderInput,
  VoidInput,
  ZInput,
} from '../../shared/schemas/register';
import { createCatalog, productView } from './catalog';
import { createCashiers } from './cashiers';
import { createRegisters } from './registers';
import { openSettings, settingsView } from './settings';
import { KIND, type ProductData, type SaleData, type ShiftData } from './model';
import { addLineInTx, changeLine, loadSale, person, processorOf, requireSale, requireSameLane, saleView, saveSale, startSaleInTx, voidLine, type SaleContext } from './sales';
import { createProcessorWatch } from './processor';
import { recoverPending, takeTender, type TenderDeps, type TenderOutcome } from './tenders';
import { journalOutsideInTx, owedReversalsInTx, recoverReversals, refuseOutsideWhileOpenInTx, registerLaneOfReversal, refundSale, settleReversal, voidSale, type ReversalOutcome } from './reversals';
import { buildReceipt } from './receipts';
import { aggregate, getZ, listZ, nextPeriod, periodEntries, putZ, reconcile } from './reports';
import { SAMPLE_CASHIER_NAME, sampleCode, sampleProducts } from './sample';
import { formatMoney } from '../../shared/money';

export type { TenderOutcome } from './tenders';
export type { ReversalOutcome } from './reversals';

/**
 * The point of sale: catalog, cashiers and shifts, sales with their tenders, voids and refunds,
 * receipts, X and Z reports. Every rule is here; the screens show what these return.
 *
 * `shift` (from signIn) names the cashier and the lane of every register call. `actor` is the API
 * credential making the call (recorded on gateway transactions as `created_by_user`).
 */
export interface Register {
  /** Set once seedSample made the sample cashier (sandbox): its code, to print once. */
  readonly firstCashier?: { id: string; name: string; code: string };
  /**
   * A new sandbox install's sample catalog and cashier, once per install (nothing on a live
   * account or when the register was set up already). Returns the cashier and its code to show once.
   */
  seedSample(): Promise<{ id: string; name: string; code: string } | undefined>;
  /** A new code for a cashier (by id or name), shown once: the way back in when the code is lost. */
  resetCashierCode(who: string): Promise<{ cashier: Cashier; code: string }>;
  settings(): RegisterSettings;
  updateSettings(patch: SettingsPatch): Promise<RegisterSettings>;

  products(query: ProductQuery): Promise<Product[]>;
  /** A page of products(), with the cursor of the next. */
  productPage(query: ProductQuery): Promise<{ products: Product[]; next: string | null }>;
  product(code: string): Promise<Product>;
  createProduct(input: ProductCreate): Promise<Product>;
  updateProduct(code: string, patch: ProductPatch): Promise<Product>;

  cashiers(): Promise<Cashier[]>;
  createCashier(input: CashierCreate): Promise<CashierWithCode>;
  updateCashier(id: string, patch: CashierPatch): Promise<Cashier>;
  signIn(laneid: string, code: string): Promise<Shift>;
  signOut(shift: string): Promise<Shift>;

  register(laneid: string): Promise<RegisterView>;
  /** `locale` (here, addLine and changeLine): how amounts read in a refusal's message (the asking screen's). */
  startSale(input: SaleStart, locale?: string): Promise<{ sale: Sale; created: boolean }>;
  sale(idOrNumber: string): Promise<Sale>;
  recentSales(laneid: string | undefined, limit: number): Promise<Sale[]>;
  addLine(sale: string, input: AddLine, locale?: string): Promise<Sale>;
  changeLine(sale: string, line: number, patch: LinePatch, locale?: string): Promise<Sale>;
  voidLine(sale: string, line: number, shift: string): Promise<Sale>;
  /** `locale`: how amounts read in the answer's message (the asking screen's); default the currency's home format. */
  tender(sale: string, input: TenderInput, actor: string | null, locale?: string): Promise<TenderOutcome>;
  voidSale(sale: string, input: VoidInput, actor: string | null, locale?: string): Promise<ReversalOutcome>;
  refund(sale: string, input: RefundInput, actor: string | null, locale?: string): Promise<ReversalOutcome>;
  settleReversal(sale: string, number: number, input: SettleInput, actor: string | null, locale?: string): Promise<ReversalOutcome>;
  receipt(sale: string, options: { reversal?: number | undefined; copy?: boolean | undefined; locale?: string | undefined }): Promise<Receipt>;

  xReport(laneid: string): Promise<RegisterReport>;
  zClose(laneid: string, input: ZInput): Promise<RegisterReport>;
  zReports(laneid: string): Promise<RegisterReport[]>;
  zReport(laneid: string, number: number): Promise<RegisterReport>;

  /** Settles tenders and refunds left pending by a stop (also the `register.recover` tick task). */
  recover(): Promise<number>;
}

export interface RegisterDeps {
  core: EngineCore;
  account: Account;
  orders: Orders;
  lanes: Lanes;
  gateway: Gateway;
  giftCards: GiftCards;
  /** The install's key file (cashier code hashes). */
  keys: InstallKeys;
  /** A lane's gift cards live on its hub (sync/hub-gift-cards.ts). */
  hubGift?: HubGift;
}

export async function createRegister(deps: RegisterDeps): Promise<Register> {
  const { core, account } = deps;
  const settings = await openSettings(core);
  const catalog = createCatalog(core);
  const registers = createRegisters(core, deps.lanes);
  const cashiers = createCashiers(core, registers, deps.keys);
  const ctx: TenderDeps = {
    core,
    account,
    orders: deps.orders,
    catalog,
    cashiers,
    registers,
    settings: () => settings.current(),
    ensureTaxMarksInTx: (tx, rates) => settings.ensureMarksInTx(tx, rates),
    gateway: deps.gateway,
    giftCards: deps.giftCards,
    inflight: new Set(),
    keys: deps.keys,
    ...(deps.hubGift ? { hubGift: deps.hubGift } : {}),
    processor: createProcessorWatch(core, account, () => deps.gateway.probeProcessor()),
  };
  const sales: SaleContext = ctx;
  const reversalsInFlight = new Set<string>();

  let firstCashier: Register['firstCashier'];
  const seedSample = async (): Promise<Register['firstCashier']> => {
    if (account.profile().environment !== 'sandbox') return undefined;
    const code = sampleCode(core.ids.secret(8));
    const made = await core.mutate(async (tx) => {
      if (await getRecord(tx, KIND.settings, 'register')) return undefined;
      await putRecord(tx, KIND.settings, 'register', { ...settings.current(), updated_at: tx.at }, { type: 'pos_settings.created', entity: 'pos_settings', key: 'register' });
      const products = sampleProducts(tx);
      for (const p of products) {
        if (!(await getRecord(tx, KIND.product, p.code))) await catalog.putInTx(tx, p, true);
      }
      // The sample's rates get their letters lowest first: A 0%, B 5%, C 13%.
      await settings.ensureMarksInTx(tx, [...new Set([...products.map((p) => p.tax_rate), settings.current().default_tax_rate])].sort((a, b) => a - b));
      const cashier = await cashiers.createInTx(tx, SAMPLE_CASHIER_NAME, code, true);
      return { id: cashier.id, name: cashier.name, code };
    });
    if (made) firstCashier = made;
    return made;
  };

  // An install from before tax letters were kept: its catalog's rates get theirs, lowest first (as
  // its receipts mostly showed them), once; rates used later get the next letters.
  if (!settings.marks().length && (await getRecord(core, KIND.settings, 'register'))) {
    const rates = (await recordsOfKind<ProductData>(core, KIND.product)).map((r) => r.data.tax_rate);
    await settings.ensureMarks([...new Set([...rates, settings.current().default_tax_rate])].sort((a, b) => a - b));
  }

  // Card payments of the register's sales given back in the back office or through the API count
  // on the sale's lane's X and Z, journalled in the refund's own unit of work (reversals.ts).
  deps.gateway.onReversalInTx((tx, made, parent) => journalOutsideInTx(ctx, tx, made, parent));
  // ... but none of a sale still open at the register: its payments go back at the register.
  deps.gateway.onReversalCheckInTx((tx, parent, action) => refuseOutsideWhileOpenInTx(tx, parent, action));

  core.onTick('register.recover', async () => {
    await recoverPending(ctx);
    await recoverReversals(ctx, reversalsInFlight);
  });

  const mutateSale = (saleId: string, shiftId: string, type: string, change: (sale: SaleData, shift: ShiftData, tx: Tx) => Promise<SaleData> | SaleData) =>
    core.mutate(async (tx) => {
      const shift = await cashiers.requireShiftInTx(tx, shiftId);
      const sale = await requireSale(tx, saleId);
      requireSameLane(sale, shift);
      if (sale.pending_tender) throw fail.conflict('tender_in_progress', 'A payment is in progress on this sale: wait for it to finish, or cancel it on the terminal');
      const next = await change(sale, shift, tx);
      return saleView(sales, await saveSale(sales, tx, next, type));
    });

  const report = async (laneid: string) => {
    const state = await registers.getInTx(core, laneid);
    const entries = await periodEntries(core, laneid, state.period);
    return aggregate(entries, { kind: 'x', laneid, period: state.period, from: state.period_started_at, to: new Date(core.clock.now()).toISOString(), currency: account.profile().currency }, settings.marks());
  };

  return {
    get firstCashier() {
      return firstCashier;
    },
    seedSample,
    resetCashierCode: (who) => cashiers.resetCode(who),
    settings: () => settingsView(settings.current()),
    updateSettings: (patch) => settings.update(patch),

    products: (query) => catalog.list(query),
    productPage: (query) => catalog.page(query),
    async product(code) {
      const p = await catalog.get(code);
      if (!p) throw notFound('product_not_found', `No product ${code}`);
      return productView(p);
    },
    createProduct: (input) => catalog.create(input),
    updateProduct: (code, patch) => catalog.update(code, patch),

    cashiers: () => cashiers.list(),
    createCashier: (input) => cashiers.create(input),
    updateCashier: (id, patch) => cashiers.update(id, patch),
    signIn: (laneid, code) => cashiers.signIn(laneid, code),
    signOut: (shift) => cashiers.signOut(shift),

    async register(laneid) {
      const lane = await registers.lane(laneid);
      if (!lane) throw notFound('lane_not_found', `No lane ${laneid}`);
      const state = await registers.getInTx(core, laneid);
      const shift = state.shift ? (await getRecord<{ cashier: { name: string }; opened_at: string; closed_at: string | null }>(core, KIND.shift, state.shift))?.data : undefined;
      const open = state.open_sale ? await loadSale(core, state.open_sale) : undefined;
      return {
        laneid,
        lane: { name: lane.name, status: lane.status, activity: lane.activity, last_error: lane.last_error },
        merchant: account.profile().name,
        currency: account.profile().currency,
        period: state.period,
        period_started_at: state.period_started_at,
        signed_in: shift && !shift.closed_at ? { cashier: shift.cashier.name, since: shift.opened_at } : null,
        open_sale: open && open.status === 'open' ? saleView(sales, open) : null,
        last_z: state.last_z,
        processor: processorOf(sales),
      };
    },

    async startSale(input, locale) {
      return core.mutate(async (tx) => {
        const shift = await cashiers.requireShiftInTx(tx, input.shift);
        const started = await startSaleInTx(sales, tx, shift);
        let sale = started.sale;
        if (input.line) {
          if (sale.pending_tender) throw fail.conflict('tender_in_progress', 'A payment is in progress on this sale');
          sale = await saveSale(sales, tx, await addLineInTx(sales, tx, sale, input.line, { locale }), 'pos_sale.updated');
        }
        return { sale: saleView(sales, sale), created: started.created };
      });
    },

    async sale(idOrNumber) {
      const sale = await loadSale(core, idOrNumber);
      if (!sale) throw notFound('sale_not_found', `No sale ${idOrNumber}: check the receipt number`);
      return saleView(sales, sale);
    },

    async recentSales(laneid, limit) {
      const lanes = laneid ? [laneid] : (await registers.all()).map((r) => r.laneid);
      const out: SaleData[] = [];
      for (const l of lanes) {
        const rows = await core.find<{ data: SaleData } & { id: string; watermark: number }>('records', {
          selector: { kind: KIND.sale, ref: { $gte: `${l}/`, $lt: `${l}/\uffff` } },
          sort: [{ kind: 'desc' }, { ref: 'desc' }],
          limit,
        });
        out.push(...rows.map((r) => r.data));
      }
      return out
        .sort((a, b) => b.created_at.localeCompare(a.created_at))
        .slice(0, limit)
        .map((s) => saleView(sales, s));
    },

    addLine: (saleId, input, locale) => {
      const { shift, ...line } = input;
      return mutateSale(saleId, shift, 'pos_sale.updated', (sale, _s, tx) => addLineInTx(sales, tx, sale, line, { locale }));
    },
    changeLine: (saleId, line, patch, locale) => {
      const { shift, ...rest } = patch;
      return mutateSale(saleId, shift, 'pos_sale.updated', (sale, s) => changeLine(sale, s, line, rest, { locale }));
    },
    voidLine: (saleId, line, shift) => mutateSale(saleId, shift, 'pos_sale.updated', (sale) => voidLine(sale, line)),

    tender: (saleId, input, actor, locale) => takeTender(ctx, saleId, input, actor, { locale }),
    voidSale: (saleId, input, actor, locale) => voidSale(ctx, reversalsInFlight, saleId, input, actor, { locale }),
    refund: (saleId, input, actor, locale) => refundSale(ctx, reversalsInFlight, saleId, input, actor, { locale }),
    settleReversal: (saleId, number, input, actor, locale) => settleReversal(ctx, reversalsInFlight, saleId, number, input, actor, { locale }),

    receipt: (saleId, options) =>
      buildReceipt(
        {
          core,
          gateway: deps.gateway,
          merchant: () => account.profile().name,
          laneName: async (laneid) => (await registers.lane(laneid))?.name ?? `Lane ${laneid}`,
          settings: () => settings.current(),
          ensureTaxMarks: (rates) => settings.ensureMarks(rates),
        },
        saleId,
        options,
      ),

    async xReport(laneid) {
      if (!(await registers.lane(laneid))) throw notFound('lane_not_found', `No lane ${laneid}`);
      return report(laneid);
    },

    async zClose(laneid, input) {
      if (!(await registers.lane(laneid))) throw notFound('lane_not_found', `No lane ${laneid}`);
      const closed = await core.mutate(async (tx) => {
        const shift = await cashiers.requireShiftInTx(tx, input.shift);
        if (shift.laneid !== laneid) throw fail.precondition('wrong_lane', `This cashier is signed in on lane ${shift.laneid}, not ${laneid}`);
        const state = await registers.getInTx(tx, laneid);
        if (state.pending_reversals?.length) throw fail.conflict('reversal_in_progress', 'A refund or void is still in progress on this lane: wait for it to finish');
        if (state.open_sale) {
          const open = await loadSale(tx, state.open_sale);
          if (open && open.status === 'open' && open.tenders.some((t) => t.status === 'approved' || t.status === 'pending')) {
            throw fail.precondition('sale_in_progress', `Sale ${open.number} is partly paid: finish or void it before the Z report`);
          }
        }
        const entries = await periodEntries(tx, laneid, state.period);
        const owed = await owedReversalsInTx(tx, laneid, entries);
        if (owed.length) {
          const money = (c: number) => formatMoney(c, account.profile().currency);
          const list = owed.map(({ sale, reversal }) => `${reversal.kind === 'void' ? 'the void' : 'the refund'} ${reversal.document || reversal.number} of sale ${sale.number} still owes the customer ${money(reversal.outstanding_cents)}`);
          throw fail.precondition('reversal_incomplete', `On lane ${laneid}, ${list.join('; ')}: settle it (retry, or give it in cash) before the Z report`);
        }
        // A second Z straight after a Z is almost always a slip: an empty period is closed only when asked for explicitly.
        if (entries.length === 0 && input.confirm_empty !== true) {
          const since = state.last_z ? `since Z report ${state.last_z.number}` : 'since this lane opened';
          throw fail.precondition('z_empty', `Nothing happened on lane ${laneid} ${since}: no sale, payment, refund, void or drawer opening. Confirm to close an empty Z report anyway`);
        }
        const r = aggregate(entries, { kind: 'z', laneid, period: state.period, from: state.period_started_at, to: tx.at, currency: account.profile().currency }, settings.marks());
        r.z = { number: state.period, closed_at: tx.at, closed_by: person(shift), batch_closed: false, batches: [], reconciliation: null };
        await putZ(tx, r, 'pos_z.closed');
        await registers.putInTx(tx, nextPeriod(state, tx.at, state.period));
        return { report: r, entries };
      });
      if (input.close_batch === false) return closed.report;
      // Then the processing day's card batch closes (for the whole account).
      const batches = await deps.gateway.closeDay(core.clock.now());
      const batched = await Promise.all(
        batches.map(async (b) => ({
          net_cents: b.batch_net_amount_cents,
          // Where each was taken: a register's refund or void at the lane that made it, else the payment's terminal.
          transactions: await Promise.all(
            (await deps.gateway.settlement.batchTransactions(b.token)).map(async (t) => ({ token: t.token, action: t.action, amount_cents: t.amount_cents, laneid: (await registerLaneOfReversal(core, t)) ?? t.terminal?.laneid ?? null })),
          ),
        })),
      );
      return core.mutate(async (tx) => {
        const r: RegisterReport = {
          ...closed.report,
          z: {
            ...closed.report.z!,
            batch_closed: true,
            batches: batches.map((b) => ({ token: b.token, processing_date: b.processing_date, transaction_count: b.transaction_count, sales_cents: b.sales_cents, refunds_cents: b.refunds_cents, net_cents: b.batch_net_amount_cents })),
            reconciliation: reconcile(closed.entries, closed.report, batched),
          },
        };
        await putZ(tx, r, 'pos_z.batch_closed');
        return r;
      });
    },

    zReports: (laneid) => listZ(core, laneid),
    async zReport(laneid, number) {
      const r = await getZ(core, laneid, number);
      if (!r) throw notFound('z_report_not_found', `Lane ${laneid} has no Z report ${number}`);
      return r;
    },

    async recover() {
      return (await recoverPending(ctx)) + (await recoverReversals(ctx, reversalsInFlight));
    },
  };
}

