import type { Receivables } from '../receivables';
import type { Orders } from '../orders';
import type { Gateway } from '../gateway';
import type { WEBHOOK_KINDS } from '../../shared/schemas/webhooks';

/**
 * The event kinds a webhook endpoint can take: the `type` of the engine's domain events, the same
 * names `GET /api/events` streams. Each delivery's body is the record's export view as it stands
 * when the delivery is made (the spec: "the same attributes as the corresponding export-view
 * operation"), so a receiver that gets an older event late still sees current data.
 */
export const WEBHOOK_EVENT_KINDS = {
  'customer.created': 'A customer was created (body: GET /api/exports/customer/{identifier})',
  'customer.updated': 'A customer changed (body: GET /api/exports/customer/{identifier})',
  'invoice.created': 'An invoice was created (body: GET /api/exports/invoice/{number_or_id})',
  'invoice.updated': 'An invoice changed: amounts, status, payments applied (body: GET /api/exports/invoice/{number_or_id})',
  'invoice.deleted': 'An invoice was deleted (body: the invoice view, with `deleted: true`)',
  'payment.created': 'An invoicing payment was recorded (body: GET /api/exports/payment/{reference_or_token})',
  'payment.updated': 'An invoicing payment changed, e.g. reversed (body: GET /api/exports/payment/{reference_or_token})',
  'order.created': 'An order was imported (body: GET /api/exports/order/{identifier})',
  'order.updated': 'An order changed (body: GET /api/exports/order/{identifier})',
  'transaction.created': 'A gateway transaction was approved (body: GET /api/exports/transaction/{token_or_reference})',
  'transaction.declined': 'A gateway transaction was declined (body: the transaction view)',
  'transaction.updated': 'A gateway transaction changed: captured, voided, settled (body: the transaction view)',
} as const satisfies Record<(typeof WEBHOOK_KINDS)[number], string>;

export type WebhookEventKind = keyof typeof WEBHOOK_EVENT_KINDS;
export const WEBHOOK_KIND_NAMES = Object.keys(WEBHOOK_EVENT_KINDS) as WebhookEventKind[];

export const isWebhookKind = (type: string): type is WebhookEventKind => Object.hasOwn(WEBHOOK_EVENT_KINDS, type);

export interface PayloadSources {
  receivables: Pick<Receivables, 'viewCustomer' | 'viewInvoice' | 'viewPayment'>;
  orders: Pick<Orders, 'view'>;
  gateway: Pick<Gateway, 'view'>;
  /** The server's public base URL, for the invoice view's pay links (as its export route adds it). */
  publicUrl(): string;
}

/** The export view of the record an event announces; undefined when the record is gone. */
export async function renderPayload(src: PayloadSources, entity: string, key: string): Promise<unknown> {
  try {
    switch (entity) {
      case 'customer':
        return await src.receivables.viewCustomer(key);
      case 'invoice': {
        const view = await src.receivables.viewInvoice(key);
        const base = src.publicUrl();
        if (typeof view.pay_url === 'string') view.pay_url = base + view.pay_url;
        if (view.pay_urls) view.pay_urls = Object.fromEntries(Object.entries(view.pay_urls).map(([e, p]) => [e, base + p]));
        return view;
      }
      case 'payment':
        return await src.receivables.viewPayment(key);
      case 'order':
        return await src.orders.view(key);
      case 'transaction':
        return await src.gateway.view(key);
      default:
        return undefined;
    }
  } catch (err) {
    if ((err as { kind?: string }).kind === 'not_found') return undefined;
    throw err;
  }
}
