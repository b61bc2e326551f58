import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import type { Receivables } from '../receivables';
import { fail } from '../errors';
import { getRecord, putRecord, recordsByRef, recordsOfKind, recordsSince } from '../records';
import { decimal } from '../../shared/money';
import { isoInZone, parseLocalDateTime } from './time';

/**
 * Disputes and comments (reference tag Collaboration). In the real service buyers open disputes
 * and write comments in its portal; here the back office records them (after a phone call, an
 * email), through our own operations, and the reference's exports and close operation read them.
 */
export const DISPUTE = 'dispute';
export const COMMENT = 'comment';

export interface DisputeData {
  id: number;
  invoice_number: string;
  customer_identifier: string;
  opened_ms: number;
  closed_ms: number | null;
  opener: string;
  closer: string | null;
  opening_comment_text: string;
  closing_comment_text: string | null;
  creator_business_name: string;
  closer_business_name: string | null;
  dispute_reason_identifier: string | null;
  dispute_reason_label_en: string;
  dispute_reason_label_fr: string;
}

export interface CommentData {
  id: number;
  customer_identifier: string;
  customer_name: string;
  comment: string;
  regarding: string;
  target_users: string;
  dispute: 'Y' | 'N';
  internal: 'Y' | 'N';
  at_ms: number;
  user: string;
  email: string;
  organization: string;
}

export interface CommentInput {
  comment: string;
  user?: string;
  email?: string;
  internal?: boolean;
  target_users?: string[];
  /** Written by the customer (taken down by the supplier): the organization is the customer's. */
  by_customer?: boolean;
}

export interface Collaboration {
  openDispute(invoiceNumber: string, input: { opener: string; comment: string; reason_identifier?: string; reason_label_en?: string; reason_label_fr?: string }): Promise<{ identifier: string; message: string; dispute_id: number }>;
  closeDispute(invoiceNumber: string, input: { closer?: string; comment?: string }): Promise<{ identifier: string; message: string }>;
  commentOnInvoice(invoiceNumber: string, input: CommentInput): Promise<{ identifier: string }>;
  commentOnCustomer(customerIdentifier: string, input: CommentInput): Promise<{ identifier: string }>;
  exportDisputes(watermark: string | undefined): Promise<Array<Record<string, unknown> & { watermark: number }>>;
  exportComments(after: number, limit: number): Promise<Array<Record<string, unknown> & { watermark: number }>>;
}

const PER_CATEGORY = 100;

async function nextId(tx: Tx, name: string): Promise<number> {
  const value = ((await getRecord<{ value: number }>(tx, 'sequence', name))?.data.value ?? 0) + 1;
  await putRecord(tx, 'sequence', name, { value }, { type: 'sequence.updated', entity: 'sequence', key: name });
  return value;
}

export function createCollaboration(deps: { core: EngineCore; account: Account; receivables: Pick<Receivables, 'viewInvoice' | 'viewCustomer'> }): Collaboration {
  const { core, account, receivables } = deps;
  const zone = () => account.profile().timezone;
  const supplier = () => account.profile().name;

  const invoiceOf = async (number: string) => {
    try {
      return await receivables.viewInvoice(number);
    } catch (err) {
      if ((err as { kind?: string }).kind === 'not_found') throw fail.precondition('invoice_not_found', `No invoice ${number}`);
      throw err;
    }
  };
  const customerName = async (identifier: string) => {
    try {
      return (await receivables.viewCustomer(identifier)).name ?? identifier;
    } catch {
      return identifier;
    }
  };

  const writeComment = async (tx: Tx, c: Omit<CommentData, 'id' | 'at_ms'>) => {
    const data: CommentData = { ...c, id: await nextId(tx, COMMENT), at_ms: tx.now };
    await putRecord(tx, COMMENT, String(data.id), data, { type: 'comment.created', entity: 'comment', key: String(data.id), data: { customer_identifier: c.customer_identifier, dispute: c.dispute } }, c.customer_identifier);
    return data;
  };

  const openDisputeOf = async (reader: Tx | EngineCore, number: string) =>
    (await recordsByRef<DisputeData>(reader, DISPUTE, number)).map((r) => r.data).find((d) => d.closed_ms === null);

  const comment = async (customer: string, regarding: string, input: CommentInput, dispute: boolean) => {
    const name = await customerName(customer);
    return core.mutate((tx) =>
      writeComment(tx, {
        customer_identifier: customer,
        customer_name: name,
        comment: input.comment,
        regarding,
        target_users: (input.target_users ?? []).join(';'),
        dispute: dispute ? 'Y' : 'N',
        internal: input.internal ? 'Y' : 'N',
        user: input.user ?? input.email ?? supplier(),
        email: input.email ?? '',
        organization: input.by_customer ? name : supplier(),
      }),
    );
  };

  return {
    async openDispute(number, input) {
      const invoice = await invoiceOf(number);
      const name = await customerName(invoice.customer_identifier);
      return core.mutate(async (tx) => {
        if (await openDisputeOf(tx, invoice.number)) throw fail.precondition('dispute_already_open', `Invoice ${invoice.number} already has an open dispute`);
        const id = await nextId(tx, DISPUTE);
        const data: DisputeData = {
          id,
          invoice_number: invoice.number,
          customer_identifier: invoice.customer_identifier,
          opened_ms: tx.now,
          closed_ms: null,
          opener: input.opener,
          closer: null,
          opening_comment_text: input.comment,
          closing_comment_text: null,
          creator_business_name: name,
          closer_business_name: null,
          dispute_reason_identifier: input.reason_identifier ?? null,
          dispute_reason_label_en: input.reason_label_en ?? '',
          dispute_reason_label_fr: input.reason_label_fr ?? '',
        };
        await putRecord(tx, DISPUTE, String(id), data, { type: 'dispute.opened', entity: 'dispute', key: String(id), data: { invoice_number: invoice.number } }, invoice.number);
        await writeComment(tx, { customer_identifier: invoice.customer_identifier, customer_name: name, comment: input.comment, regarding: `Invoice ${invoice.number}`, target_users: '', dispute: 'Y', internal: 'N', user: input.opener, email: input.opener.includes('@') ? input.opener : '', organization: name });
        return { identifier: invoice.number, message: '1 dispute opened', dispute_id: id };
      });
    },

    async closeDispute(number, input) {
      const invoice = await invoiceOf(number);
      return core.mutate(async (tx) => {
        const open = await openDisputeOf(tx, invoice.number);
        if (!open) return { identifier: invoice.number, message: '0 disputes closed' };
        const closer = input.closer ?? supplier();
        const closed: DisputeData = { ...open, closed_ms: tx.now, closer, closing_comment_text: input.comment ?? null, closer_business_name: supplier() };
        await putRecord(tx, DISPUTE, String(open.id), closed, { type: 'dispute.closed', entity: 'dispute', key: String(open.id), data: { invoice_number: invoice.number } }, invoice.number);
        if (input.comment) {
          await writeComment(tx, { customer_identifier: open.customer_identifier, customer_name: open.creator_business_name, comment: input.comment, regarding: `Invoice ${invoice.number}`, target_users: '', dispute: 'Y', internal: 'N', user: closer, email: closer.includes('@') ? closer : '', organization: supplier() });
        }
        return { identifier: invoice.number, message: '1 dispute closed' };
      });
    },

    async commentOnInvoice(number, input) {
      const invoice = await invoiceOf(number);
      const made = await comment(invoice.customer_identifier, `Invoice ${invoice.number}`, input, false);
      return { identifier: String(made.id) };
    },

    async commentOnCustomer(identifier, input) {
      try {
        await receivables.viewCustomer(identifier);
      } catch {
        throw fail.precondition('customer_not_found', `No customer ${identifier}`);
      }
      const made = await comment(identifier, `Customer ${identifier}`, input, false);
      return { identifier: String(made.id) };
    },

    async exportDisputes(watermark) {
      const since = watermark === undefined || watermark === '' ? 0 : parseLocalDateTime(watermark, zone());
      if (since === undefined) throw fail.invalid('invalid_watermark', 'The disputes watermark is a date or date and time: yyyy-mm-dd or yyyy-mm-ddThh:mm:ss', [{ field: 'watermark', message: 'yyyy-mm-dd or yyyy-mm-ddThh:mm:ss' }]);
      const all = (await recordsOfKind<DisputeData>(core, DISPUTE)).map((r) => r.data);
      const open = all.filter((d) => d.closed_ms === null && d.opened_ms >= since).sort((a, b) => a.opened_ms - b.opened_ms || a.id - b.id).slice(0, PER_CATEGORY);
      const closed = all.filter((d) => d.closed_ms !== null && d.closed_ms >= since).sort((a, b) => a.closed_ms! - b.closed_ms! || a.id - b.id).slice(0, PER_CATEGORY);
      const out: Array<Record<string, unknown> & { watermark: number }> = [];
      for (const d of [...open, ...closed].sort((a, b) => a.id - b.id)) out.push({ ...(await disputeView(d)), watermark: d.id });
      return out;
    },

    async exportComments(after, limit) {
      const rows = await recordsSince<CommentData>(core, COMMENT, after, limit);
      return rows.map((r) => ({ ...commentView(r.data, zone()), watermark: r.watermark }));
    },
  };

  async function disputeView(d: DisputeData): Promise<Record<string, unknown>> {
    const tz = zone();
    let invoice: Awaited<ReturnType<typeof receivables.viewInvoice>> | undefined;
    try {
      invoice = await receivables.viewInvoice(d.invoice_number);
    } catch {
      invoice = undefined;
    }
    const currency = invoice?.currency ?? account.profile().currency;
    return {
      closed_at: d.closed_ms === null ? null : isoInZone(d.closed_ms, tz),
      opened_at: isoInZone(d.opened_ms, tz),
      opener: d.opener,
      closer: d.closer,
      opening_comment_text: d.opening_comment_text,
      closing_comment_text: d.closing_comment_text,
      invoice_number: d.invoice_number,
      invoice_balance: { [currency.toLowerCase()]: invoice?.owing_cents ?? 0 },
      dispute_reason_identifier: d.dispute_reason_identifier,
      dispute_reason_label_en: d.dispute_reason_label_en,
      dispute_reason_label_fr: d.dispute_reason_label_fr,
      opening_comment_users_notified: [],
      // The reference's quirk: an empty string, not an array, while the dispute is open.
      closing_comment_user_notified: d.closed_ms === null ? '' : [],
      creator_business_name: d.creator_business_name,
      closer_business_name: d.closer_business_name,
      invoice_amount_paid: decimal(invoice ? invoice.amount_cents - invoice.owing_cents : 0, currency),
      invoice_identifier: `${account.profile().sender_identifier}|${d.invoice_number}`,
      invoice_external_id: (invoice as { external_id?: string | null } | undefined)?.external_id ?? null,
    };
  }
}

export function commentView(c: CommentData, timeZone: string): Record<string, unknown> {
  return {
    identifier: String(c.id),
    customer_identifier: c.customer_identifier,
    customer_name: c.customer_name,
    comment: c.comment,
    regarding: c.regarding,
    target_users: c.target_users,
    dispute: c.dispute,
    internal: c.internal,
    timestamp: isoInZone(c.at_ms, timeZone),
    user: c.user,
    email: c.email,
    organization: c.organization,
  };
}
