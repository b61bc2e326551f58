import type { Account } from '../account';
import type { EngineCore } from '../core';
import type { Receivables } from '../receivables';
import { dateInZone } from '../clock';
import { notFound } from '../errors';
import { recordsByRef, type RecordDoc } from '../records';
import { customerListItem } from '../receivables/customer-view';
import { CUSTOMER_RANK, ensureRanks, type RankData } from '../receivables/customer-rank';
import type { CustomerDoc } from '../receivables/types';
import { COMMENT, DISPUTE, commentView, type CommentData, type DisputeData } from '../collaboration';
import { isoInZone } from '../collaboration/time';
import { invoicePdf, supplierOf } from '../notifications/pdf';

/**
 * The back office's detail reads that no reference operation answers: a customer's child
 * accounts, the customer list by balance, an invoice's disputes and comments, and an invoice's
 * PDF. Each is an index read (customers' [parent], records' [kind, ref]); nothing is scanned.
 */
type Row = { [k: string]: unknown };
type ListItem = ReturnType<typeof customerListItem>;

export interface InvoiceThread {
  invoice_number: string;
  disputes: Array<{
    id: number;
    opened_at: string;
    closed_at: string | null;
    opener: string;
    closer: string | null;
    opening_comment_text: string;
    closing_comment_text: string | null;
    reason: string;
  }>;
  comments: Array<ReturnType<typeof commentView>>;
}

/** Which customers a list search keeps: an identifier's start (read off the rank, no customer loaded), or a test of the customer (a name). */
export type CustomerMatch = { prefix: string } | { named: (c: CustomerDoc) => boolean };

export interface BackofficeDetails {
  children(identifier: string): Promise<{ parent_identifier: string; children: ListItem[] }>;
  customersByBalance(query: { match?: CustomerMatch; status?: 'open' | 'closed'; after?: string; limit?: number }): Promise<{ items: ListItem[]; next: string | null }>;
  invoiceThread(numberOrId: string): Promise<InvoiceThread>;
  invoiceDocument(numberOrId: string, fileName?: string): Promise<{ file_name: string; content: Buffer }>;
}

const MAX_CHILDREN = 500;

export function createBackofficeDetails(core: EngineCore, account: Account, receivables: Pick<Receivables, 'viewInvoice' | 'invoiceDocument'>): BackofficeDetails {
  const listContext = () => ({ today: dateInZone(core.clock.now(), account.profile().timezone), accountCurrency: account.profile().currency });
  const customerByIdentifier = async (identifier: string) =>
    (await core.find<CustomerDoc & Row>('customers', { selector: { identifier }, sort: [{ identifier: 'asc' }], limit: 1 }))[0];

  return {
    async children(identifier) {
      const parent = await customerByIdentifier(identifier);
      if (!parent) throw notFound('customer_not_found', `No customer ${identifier}`);
      const docs = await core.find<CustomerDoc & Row>('customers', { selector: { parent: parent.id }, sort: [{ parent: 'asc' }, { id: 'asc' }], limit: MAX_CHILDREN });
      const ctx = listContext();
      const children = docs.map((d) => customerListItem(d, ctx)).sort((a, b) => (a.identifier < b.identifier ? -1 : 1));
      return { parent_identifier: parent.identifier, children };
    },

    async customersByBalance(query) {
      await ensureRanks(core, () => ({ accountCurrency: account.profile().currency }));
      const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
      const { match } = query;
      const ctx = listContext();
      const items: ListItem[] = [];
      let cursor = query.after ?? '';
      const filtered = match !== undefined || query.status !== undefined;
      // A search or a status is a filter over the ranked walk, bounded per page like the other lists.
      for (let read = 0; read < 20_000; ) {
        const ranks = await core.find<RecordDoc<RankData> & Row>('records', {
          selector: { kind: CUSTOMER_RANK, ref: { $gt: cursor } },
          sort: [{ kind: 'asc' }, { ref: 'asc' }],
          limit: filtered ? 500 : limit,
        });
        if (ranks.length === 0) return { items, next: null };
        read += ranks.length;
        for (const r of ranks) {
          cursor = r.ref;
          if (match && 'prefix' in match && !r.data.identifier.startsWith(match.prefix)) continue;
          const doc = await core.get<CustomerDoc & Row>('customers', r.key);
          if (!doc || (query.status && doc.data.account_status !== query.status)) continue;
          if (match && 'named' in match && !match.named(doc)) continue;
          items.push(customerListItem(doc, ctx));
          if (items.length === limit) return { items, next: r.ref };
        }
        if (ranks.length < (filtered ? 500 : limit)) return { items, next: null };
      }
      return { items, next: cursor };
    },

    async invoiceThread(numberOrId) {
      const invoice = await receivables.viewInvoice(numberOrId);
      const tz = account.profile().timezone;
      const disputes = (await recordsByRef<DisputeData>(core, DISPUTE, invoice.number))
        .map((r) => r.data)
        .sort((a, b) => a.opened_ms - b.opened_ms)
        .map((d) => ({
          id: d.id,
          opened_at: isoInZone(d.opened_ms, tz),
          closed_at: d.closed_ms === null ? null : isoInZone(d.closed_ms, tz),
          opener: d.opener,
          closer: d.closer,
          opening_comment_text: d.opening_comment_text,
          closing_comment_text: d.closing_comment_text,
          reason: d.dispute_reason_label_en,
        }));
      // Comments are kept by customer; an invoice's are those regarding it.
      const regarding = `Invoice ${invoice.number}`;
      const comments = (await recordsByRef<CommentData>(core, COMMENT, invoice.customer_identifier))
        .map((r) => r.data)
        .filter((c) => c.regarding === regarding)
        .sort((a, b) => a.at_ms - b.at_ms || a.id - b.id)
        .map((c) => commentView(c, tz));
      return { invoice_number: invoice.number, disputes, comments };
    },

    async invoiceDocument(numberOrId, fileName) {
      const invoice = await receivables.invoiceDocument(numberOrId);
      if (fileName) {
        const stored = (await recordsByRef<{ file_name: string; content_base64: string }>(core, 'invoice_attachment', invoice.number)).find((r) => r.data.file_name === fileName);
        if (!stored) throw notFound('attachment_not_found', `Invoice ${invoice.number} has no attachment ${fileName}`);
        return { file_name: stored.data.file_name, content: Buffer.from(stored.data.content_base64, 'base64') };
      }
      return invoicePdf(core, invoice, supplierOf(account.profile()));
    },
  };
}
