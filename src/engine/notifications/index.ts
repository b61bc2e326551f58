import type { EngineCore } from '../core';
import type { Account } from '../account';
import type { Receivables } from '../receivables';
import type { Orders } from '../orders';
import type { Autopay } from '../wallets/autopay';
import type { CustomerDoc, ContactData, OpenItem } from '../receivables/types';
import { fail } from '../errors';
import type { InstallKeys } from '../security/install-keys';
import { formatMoney } from '../../shared/money';
import { invoicePdf, supplierOf } from './pdf';
import { createSender, MESSAGE, queueMessage, type MessageData, type NewMessage } from './outbox';
import { relayConfigOf, relayView, removeRelay, setRelay, validateRelay, type RelayInput, type RelayView } from './relay';
import { checkRelay } from './check';
import { mailStatus, type MailStatus } from './status';
import { DEFAULT_DELIVERY, type DeliveryOptions } from '../webhooks/worker';

export type { MessageData } from './outbox';
export type { RelayInput, RelayView } from './relay';
export type { RelayCheck } from './check';
export type { MailStatus } from './status';

/** The ids of the outbox messages an operation queued (none: nobody is e-mailed). */
export interface Queued {
  messages: string[];
}

/** How long saving a relay waits for it to answer (the connection, EHLO, STARTTLS, AUTH). */
const CHECK_TIMEOUT_MS = 5_000;

export const REMINDER_COUNTS = ['requested', 'sent', 'not_found', 'suppressed', 'invoice_suppressed', 'not_invited', 'paid', 'draft', 'credit', 'scheduled', 'on_plan'] as const;
export type ReminderCounts = Record<(typeof REMINDER_COUNTS)[number], number>;

export interface DirectMessageInput {
  email: string;
  object_type: 'invoice' | 'order' | 'payment_method';
  object_identifier?: string;
  customer_identifier?: string;
  create_contact?: boolean;
  first_name?: string;
  last_name?: string;
}

export interface Notifications {
  /** The counts (the reference's answer), and the messages queued: each is queued, not yet delivered, when this answers. */
  remind(ids: string[]): Promise<{ counts: ReminderCounts } & Queued>;
  directMessage(input: DirectMessageInput): Promise<Queued>;
  /** Issues an invitation (receivables' rule) and emails it, unless the customer's notifications are suppressed. */
  invite(identifier: string, email: string): Promise<Queued>;
  relay(): Promise<{ mode: 'smtp' | 'sandbox'; relay: RelayView | null; status: MailStatus }>;
  /** Tries the relay (no message sent), then saves it with what the try found (`check`), whether it answered or not. */
  setRelay(input: RelayInput): Promise<RelayView>;
  removeRelay(): Promise<void>;
  outbox(page: { before?: number; limit: number; ids?: string }): Promise<{ messages: Array<MessageData & { watermark: number; last_attempt_at: string | null }>; next_before: number | null }>;
  /** The server's public base URL, for the click-to-pay links reminders carry (none until it is said). */
  setPublicUrl(url: () => string): void;
  /** Resolves once no message is due (tests). */
  drain(): Promise<void>;
  close(): void;
}

/** What reminders read of an invoice's view. */
type InvoiceLike = { id: number; number: string; customer_identifier: string; currency: string; amount_cents: number; owing_cents: number; date?: string | null; due_date?: string | null } & { auto_debit?: boolean; plan_identifier?: string | null; delivery_status?: string; deleted?: boolean; pay_url?: string; pay_urls?: Record<string, string> };

const oneLine = (text: string) => text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();

/** Open invoices an invitation lists at most. */
const INVITATION_INVOICES = 20;
const ROLES_REFUSED = new Set(['disabled', 'read_only', 'read-only', 'readonly']);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
/**
 * Whether nobody may be emailed about the customer (or one of its invoices), and why: the
 * customer's notifications are suppressed (`notification_suppressed`: all of them), else the
 * invoice's (`suppress_notifications`, its delivery status `new`). The one rule reminders count by,
 * direct messages refuse by and invitations follow.
 */
type Suppression = 'suppressed' | 'invoice_suppressed';
function suppressionOf(customer: CustomerDoc | undefined, inv?: Pick<InvoiceLike, 'delivery_status'>): Suppression | undefined {
  if (customer?.data.notification_suppressed) return 'suppressed';
  if (inv?.delivery_status === 'new') return 'invoice_suppressed';
  return undefined;
}
/** A direct message about a customer or invoice whose notifications are suppressed is refused, nothing written or sent. */
function refuseSuppressed(customer: CustomerDoc | undefined, inv?: Pick<InvoiceLike, 'delivery_status'>): void {
  const why = suppressionOf(customer, inv);
  if (why === 'suppressed') throw fail.invalid('customer_notifications_suppressed', "The customer's notifications are suppressed: nothing was sent.");
  if (why === 'invoice_suppressed') throw fail.invalid('invoice_notifications_suppressed', "The invoice's notifications are suppressed: nothing was sent.");
}
/** A contact who can be emailed: not disabled, and invited, activated or signed up. */
const reachable = (c: ContactData) => !c.disabled && !!(c.activated_at || c.signed_up_at || c.invited_at);

export function createNotifications(deps: { core: EngineCore; account: Account; keys: InstallKeys; receivables: Receivables; orders: Orders; autopay: Pick<Autopay, 'willPay'>; options?: Partial<DeliveryOptions>; deliver?: boolean }): Notifications {
  const { core, account, keys, receivables, orders, autopay } = deps;
  // Names typed elsewhere (the account's, a customer's) go into a message's lines as one line each:
  // a line break in one would let it write lines of its own ("Pay to ..." under the shop's name).
  const supplier = () => oneLine(account.profile().name);

  const findInvoice = async (key: string): Promise<InvoiceLike | undefined> => {
    try {
      const view = (await receivables.viewInvoice(key)) as unknown as InvoiceLike;
      return view.deleted ? undefined : view;
    } catch (err) {
      if ((err as { kind?: string }).kind === 'not_found') return undefined;
      throw err;
    }
  };
  const findCustomer = async (identifier: string) =>
    (await core.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: { identifier }, sort: [{ identifier: 'asc' }], limit: 1 }))[0];

  const sender = createSender({
    core,
    keys,
    ...(deps.options ? { options: deps.options } : {}),
    async attachment(invoiceKey) {
      const invoice = await receivables.invoiceDocument(invoiceKey).catch((err: unknown) => {
        if ((err as { kind?: string }).kind === 'not_found') return undefined;
        throw err;
      });
      return invoice && !invoice.deleted ? invoicePdf(core, invoice, supplierOf(account.profile())) : undefined;
    },
  });
  // The admin CLI's engine records messages and leaves sending to the server.
  if (deps.deliver === false) sender.close();
  core.onTick('mail', async () => sender.pump());
  sender.pump();

  let publicUrl = () => '';
  /** The contact's own click-to-pay link (the invoice's, for an address that is no contact), once the server said its public URL. */
  const payLine = (inv: InvoiceLike, email: string) => {
    const path = inv.pay_urls?.[email] ?? inv.pay_url;
    const base = publicUrl();
    return path && base ? `\n\nPay it online: ${base}${path}` : '';
  };
  /**
   * What an invitation lets its reader act on: the account's open invoices, oldest due first, each
   * with what it owes and its own click-to-pay link (at most INVITATION_INVOICES; the rest counted).
   */
  const openInvoiceLines = async (customer: CustomerDoc, email: string): Promise<string> => {
    const due = (item: OpenItem) => item[1] || item[0];
    const open = Object.entries(customer.data.ledger?.open ?? {}).sort(([, a], [, b]) => (due(a) < due(b) ? -1 : due(a) > due(b) ? 1 : 0));
    if (open.length === 0) return '\n\nNothing is owing on the account today.';
    const lines: string[] = [];
    for (const [number] of open.slice(0, INVITATION_INVOICES)) {
      const inv = await findInvoice(number);
      if (!inv || inv.owing_cents <= 0) continue;
      const owing = formatMoney(inv.owing_cents, inv.currency.toUpperCase());
      lines.push(`- Invoice ${inv.number}: ${owing} owing${inv.due_date ? `, due ${inv.due_date}` : ''}${payLine(inv, email).replace('\n\nPay it online:', '. Pay it online:')}`);
    }
    const more = open.length - INVITATION_INVOICES;
    return `\n\nOpen invoices:\n${lines.join('\n')}${more > 0 ? `\n...and ${more} more.` : ''}`;
  };

  const reminderText = (inv: InvoiceLike, email: string): NewMessage => {
    const owing = formatMoney(inv.owing_cents, inv.currency.toUpperCase());
    return {
      purpose: 'reminder',
      to: email,
      subject: `Reminder: invoice ${inv.number} from ${supplier()}, ${owing} owing`,
      text: `This is a reminder that invoice ${inv.number} has ${owing} owing${inv.due_date ? `, due ${inv.due_date}` : ''}.${payLine(inv, email)}\n\n${supplier()}`,
      attach_invoice: null,
    };
  };

  /** Queues messages in one unit of work, then wakes the sender; answers their ids. */
  const queue = async (messages: NewMessage[]): Promise<Queued> => {
    if (messages.length === 0) return { messages: [] };
    const ids = messages.map(() => `M${core.ids.token()}`);
    const from = (await relayView(core))?.from;
    await core.mutate(async (tx) => {
      for (const [i, m] of messages.entries()) await queueMessage(tx, ids[i]!, m, from);
      tx.afterCommit(() => sender.pump());
    });
    return { messages: ids };
  };

  const classify = async (id: string, counts: ReminderCounts, out: NewMessage[], seen: Set<string>) => {
    const inv = await findInvoice(id);
    if (!inv) return void (counts.not_found += 1);
    // One reminder an invoice, however many times the list names it (by number and by id).
    if (seen.has(inv.number)) return;
    seen.add(inv.number);
    const customer = await findCustomer(inv.customer_identifier);
    // Invoices here are never drafts (the reference's draft state is not imported): `draft` stays 0.
    if (inv.amount_cents < 0) return void (counts.credit += 1);
    if (inv.owing_cents <= 0) return void (counts.paid += 1);
    const suppressed = suppressionOf(customer, inv);
    if (suppressed) return void (counts[suppressed] += 1);
    if (inv.plan_identifier) return void (counts.on_plan += 1);
    if (await autopay.willPay(inv)) return void (counts.scheduled += 1);
    const recipients = (customer?.data.contacts ?? []).filter(reachable);
    if (recipients.length === 0) return void (counts.not_invited += 1);
    counts.sent += 1;
    const attach = customer?.data.pdf_attachment_opt_in ? inv.number : null;
    for (const c of recipients) out.push({ ...reminderText(inv, c.email), attach_invoice: attach });
  };

  return {
    async remind(ids) {
      const counts = Object.fromEntries(REMINDER_COUNTS.map((k) => [k, 0])) as ReminderCounts;
      counts.requested = ids.length;
      const out: NewMessage[] = [];
      const seen = new Set<string>();
      for (const id of ids) await classify(id, counts, out, seen);
      return { counts, ...(await queue(out)) };
    },

    async directMessage(input) {
      return queue(await directMessage(input));
    },

    async invite(identifier, email) {
      await receivables.issueInvitation(identifier, email);
      // A second unit: a crash between the two leaves the invitation recorded and its email unsent
      // (re-inviting sends it); receivables would have to queue it in its own unit to close that gap.
      const customer = await findCustomer(identifier);
      if (!customer || suppressionOf(customer)) return { messages: [] };
      const contact = customer.data.contacts.find((c) => same(c.email, email));
      if (contact?.signed_up_at) return { messages: [] };
      return queue([
        {
          purpose: 'invitation',
          to: email,
          subject: `${supplier()} invites you to view and pay your invoices`,
          text: `${supplier()} invites you to view and pay the invoices of account ${oneLine(customer.data.name)} (${identifier}).${await openInvoiceLines(customer, email)}\n\n${supplier()}`,
          attach_invoice: null,
        },
      ]);
    },

    async relay() {
      const relay = await relayView(core);
      return { mode: relay ? 'smtp' : 'sandbox', relay, status: await mailStatus(core) };
    },
    async setRelay(input) {
      validateRelay(input);
      // Tried before the unit of work (no store transaction waits on the network), then saved
      // whatever the answer: a relay down for a moment, or one whose firewall opens for this
      // machine later, still gets the outbox's messages when it answers (they are retried for three
      // days), whereas refusing the save would leave the install in sandbox mode, where mail goes
      // nowhere. The answer's `check` says it did not answer, and why, beside the saved settings.
      const check = await checkRelay(await relayConfigOf(core, keys, input), Math.min(CHECK_TIMEOUT_MS, deps.options?.timeoutMs ?? DEFAULT_DELIVERY.timeoutMs), () => core.clock.now());
      return core.mutate((tx) => setRelay(tx, keys, input, check));
    },
    removeRelay: () => core.mutate((tx) => removeRelay(tx)),

    async outbox(page) {
      const view = (r: { watermark: number; data: MessageData }) => ({ ...r.data, last_attempt_at: r.data.last_attempt_at ?? null, watermark: r.watermark });
      if (page.ids !== undefined) {
        // The messages an operation queued (its Laneway-Mail-Messages header), newest first: how a screen follows them.
        const ids = [...new Set(page.ids.split(',').map((id) => id.trim()).filter(Boolean))].slice(0, page.limit);
        const rows = await core.find<{ id: string; watermark: number; data: MessageData; [k: string]: unknown }>('records', { selector: { id: { $in: ids.map((id) => `${MESSAGE}/${id}`) } } });
        return { messages: rows.map(view).sort((a, b) => b.watermark - a.watermark), next_before: null };
      }
      const rows = await core.find<{ id: string; watermark: number; data: MessageData; [k: string]: unknown }>('records', {
        selector: { kind: MESSAGE, watermark: { $lt: page.before ?? Number.MAX_SAFE_INTEGER } },
        sort: [{ kind: 'desc' }, { watermark: 'desc' }],
        limit: page.limit,
      });
      const messages = rows.map(view);
      return { messages, next_before: messages.length === page.limit ? messages.at(-1)!.watermark : null };
    },
    setPublicUrl(url) {
      publicUrl = url;
    },
    drain: () => sender.drain(),
    close: () => sender.close(),
  };

  /** The contact rules of a direct message; answers the contact to write (created or activated), if any. */
  async function contactFor(customer: CustomerDoc, input: DirectMessageInput, strictRole: boolean): Promise<void> {
    const contact = customer.data.contacts.find((c) => same(c.email, input.email));
    if (!contact && !input.create_contact) throw fail.invalid('contact_not_activated', 'email must belong to an activated contact', [{ field: 'email', message: 'email must belong to an activated contact' }]);
    if (contact?.disabled) throw fail.invalid('contact_disabled', 'email belongs to a disabled user');
    if (strictRole && contact?.user?.role && ROLES_REFUSED.has(contact.user.role.toLowerCase())) throw fail.invalid('contact_role', 'Contact does not have the required role.');
    if (contact && (contact.activated_at || contact.signed_up_at)) return;
    // create_contact true: made if absent and activated; false: an existing contact is activated.
    await receivables.importCustomer({
      identifier: customer.identifier,
      contacts: [{ email: input.email, ...(input.first_name ? { first_name: input.first_name } : {}), ...(input.last_name ? { last_name: input.last_name } : {}), bulk_activate: true }],
    } as Parameters<Receivables['importCustomer']>[0]);
  }

  async function directMessage(input: DirectMessageInput): Promise<NewMessage[]> {
    if (input.object_type === 'invoice') {
      if (!input.object_identifier) throw fail.invalid('object_identifier_required', 'object_identifier is required for an invoice', [{ field: 'object_identifier', message: 'required' }]);
      const inv = await findInvoice(input.object_identifier);
      if (!inv) throw fail.notFound('record_not_found', 'Record not found');
      const customer = await findCustomer(inv.customer_identifier);
      // Before the contact rules, which may write a contact: a refused message changes nothing.
      refuseSuppressed(customer, inv);
      if (customer) await contactFor(customer, input, false);
      return [{ ...reminderText(inv, input.email), attach_invoice: customer?.data.pdf_attachment_opt_in ? inv.number : null }];
    }
    if (input.object_type === 'order') {
      if (!input.object_identifier) throw fail.invalid('object_identifier_required', 'object_identifier is required for an order', [{ field: 'object_identifier', message: 'required' }]);
      const order = (await orders.view(input.object_identifier)) as unknown as Record<string, unknown> | undefined;
      if (!order) throw fail.notFound('record_not_found', 'Record not found');
      if (!account.can('orders')) throw fail.invalid('deposit_requests_disabled', 'Deposit requests are not enabled for this supplier');
      if (order.draft === true) throw fail.invalid('order_is_draft', 'The order is a draft');
      const attrs = (order.attributes ?? {}) as Record<string, unknown>;
      const amount = Number(order.amount_cents ?? 0);
      const owing = Number(order.owing_cents ?? attrs.owing_cents ?? amount);
      const deposit = Number(order.deposit_amount_cents ?? attrs.deposit_amount_cents ?? 0);
      if (!(owing > 0)) throw fail.invalid('order_not_owing', 'The order has nothing owing (owing_cents must be greater than 0)');
      if (!(deposit > 0)) throw fail.invalid('order_no_deposit', 'The order asks no deposit (deposit_amount_cents must be greater than 0)');
      const customerId = String(order.customer_identifier ?? attrs.customer_identifier ?? '');
      const customer = customerId ? await findCustomer(customerId) : undefined;
      if (!customer) throw fail.invalid('order_without_customer', 'The order does not belong to a customer');
      refuseSuppressed(customer);
      await contactFor(customer, input, false);
      const currency = String(order.currency ?? account.profile().currency).toUpperCase();
      return [{ purpose: 'deposit_request', to: input.email, subject: `Deposit requested for order ${input.object_identifier}`, text: `${supplier()} asks a deposit of ${formatMoney(deposit, currency)} on order ${input.object_identifier}.`, attach_invoice: null }];
    }
    if (!input.customer_identifier) throw fail.invalid('customer_identifier_required', 'customer_identifier is required for a payment_method request', [{ field: 'customer_identifier', message: 'required' }]);
    const customer = await findCustomer(input.customer_identifier);
    if (!customer) throw fail.invalid('customer_not_found', 'Customer not found.');
    if (customer.data.account_status !== 'open' || customer.data.extra?.suspended === true) throw fail.invalid('customer_closed', 'Customer is closed.');
    if (!account.can('wallets')) throw fail.invalid('credit_cards_not_accepted', 'Credit cards are not accepted');
    if (customer.data.extra?.credit_card_exempt === true) throw fail.invalid('customer_card_exempt', 'Customer exempted from credit card payments');
    refuseSuppressed(customer);
    await contactFor(customer, input, true);
    return [{ purpose: 'payment_method_request', to: input.email, subject: `${supplier()} asks you to add a payment card`, text: `${supplier()} asks you to add a payment card to your account ${customer.identifier}.`, attach_invoice: null }];
  }
}

