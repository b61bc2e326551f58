import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { InstallKeys } from '../security/install-keys';
import { relayConfig, type RelayConfig } from './relay';
import { sendError, transportOptions } from './transport';
import { backoffMs, DEFAULT_DELIVERY, type DeliveryOptions } from '../webhooks/worker';

/**
 * The mail outbox: every message is a record (`mail_message`) written in the unit of work that
 * decided to send it, so a restart or a crash loses none. A sender sends the due ones through the
 * SMTP relay, retried like webhooks (backoff with jitter for three days, then failed); in sandbox
 * mode (no relay) a message is kept here as sent and goes nowhere.
 */
export const MESSAGE = 'mail_message';

export interface MessageData {
  id: string;
  /** What it is: `reminder` (invoice), `deposit_request` (order), `payment_method_request`. */
  purpose: string;
  to: string;
  subject: string;
  text: string;
  /** The invoice whose PDF is attached when it is sent (rendered then, not stored twice). */
  attach_invoice: string | null;
  attachment: { file_name: string; size: number } | null;
  state: 'queued' | 'sent' | 'failed';
  transport: 'smtp' | 'sandbox' | null;
  attempts: number;
  first_attempt_ms: number;
  next_attempt_ms: number;
  created_at: string;
  /** When the newest attempt to send it was made (absent on messages older than this field). */
  last_attempt_at?: string | null;
  sent_at: string | null;
  /**
   * The Message-ID header: chosen when the message is queued and sent with every attempt, so a
   * receiver that got an attempt whose answer was lost (then a retry) can drop the duplicate. Null
   * on a message queued before this was so: its first attempt chooses one, kept from then on.
   */
  message_id: string | null;
  error: string | null;
}

export type NewMessage = Pick<MessageData, 'purpose' | 'to' | 'subject' | 'text' | 'attach_invoice'>;

/**
 * The Message-ID of a message: its outbox id (a random token) at the domain of the relay's `from`
 * address when it was queued (else `laneway.invalid`, a name that is nobody's). Once chosen it does
 * not change, whatever the relay becomes.
 */
export function messageIdOf(id: string, from: string | undefined): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from ?? '')?.[1] ?? 'laneway.invalid';
  return `<${id}@${domain.toLowerCase()}>`;
}

/** `from`: the relay's sender when the message is queued (the Message-ID's domain). */
export async function queueMessage(tx: Tx, id: string, m: NewMessage, from?: string): Promise<MessageData> {
  const data: MessageData = { ...m, id, attachment: null, state: 'queued', transport: null, attempts: 0, first_attempt_ms: 0, next_attempt_ms: tx.now, created_at: tx.at, last_attempt_at: null, sent_at: null, message_id: messageIdOf(id, from), error: null };
  await putMessage(tx, data);
  return data;
}

async function putMessage(tx: Tx, m: MessageData): Promise<void> {
  await putRecord(tx, MESSAGE, m.id, m, { type: m.state === 'queued' && m.attempts === 0 ? 'mail_message.queued' : `mail_message.${m.state}`, entity: 'mail_message', key: m.id, data: { purpose: m.purpose, state: m.state } }, m.state);
}

export interface SenderPorts {
  core: EngineCore;
  keys: InstallKeys;
  options?: Partial<DeliveryOptions>;
  /** The attachment of a message (the invoice PDF), or undefined when the invoice is gone. */
  attachment(invoice: string): Promise<{ file_name: string; content: Buffer } | undefined>;
}

export interface Sender {
  pump(): void;
  drain(): Promise<void>;
  close(): void;
}

/**
 * Every attempt carries the message's one Message-ID, kept with it whatever the attempt's outcome;
 * a message queued before messages were given one at queue time gets it at its first attempt.
 */
function withMessageId(m: MessageData, relay: RelayConfig | null): MessageData & { message_id: string } {
  return { ...m, message_id: m.message_id ?? messageIdOf(m.id, relay?.from) };
}

/** One sender, one message at a time: mail is not a hot path, and a relay prefers few connections. */
export function createSender(ports: SenderPorts): Sender {
  const { core, keys } = ports;
  const options = { ...DEFAULT_DELIVERY, ...ports.options };
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const sendOne = async (m: MessageData & { message_id: string }, relay: RelayConfig | null): Promise<MessageData> => {
    const now = core.clock.now();
    const first = m.attempts === 0 ? now : m.first_attempt_ms;
    const file = m.attach_invoice ? await ports.attachment(m.attach_invoice) : undefined;
    const attachment = file ? { file_name: file.file_name, size: file.content.length } : null;
    if (!relay) return { ...m, attachment, state: 'sent', transport: 'sandbox', attempts: m.attempts + 1, first_attempt_ms: first, last_attempt_at: new Date(now).toISOString(), sent_at: new Date(now).toISOString(), error: null };
    const smtp = transportOptions(relay, options.timeoutMs);
    try {
      // Loaded on the first message sent through a relay: most installs never send one, and every start paid for it.
      const { default: nodemailer } = await import('nodemailer');
      const transport = nodemailer.createTransport(smtp);
      await transport.sendMail({ messageId: m.message_id, from: relay.from, to: m.to, subject: m.subject, text: m.text, ...(file ? { attachments: [{ filename: file.file_name, content: file.content, contentType: 'application/pdf' }] } : {}) });
      transport.close();
      return { ...m, attachment, state: 'sent', transport: 'smtp', attempts: m.attempts + 1, first_attempt_ms: first, last_attempt_at: new Date(core.clock.now()).toISOString(), sent_at: new Date(core.clock.now()).toISOString(), error: null };
    } catch (err) {
      const later = core.clock.now();
      const attempts = m.attempts + 1;
      const failed = later - first >= options.retryForMs;
      return { ...m, attachment, state: failed ? 'failed' : 'queued', transport: 'smtp', attempts, first_attempt_ms: first, next_attempt_ms: later + backoffMs(attempts, options), last_attempt_at: new Date(later).toISOString(), error: sendError(err, smtp) };
    }
  };

  const run = async () => {
    const relay = await relayConfig(core, keys);
    const queued = (await recordsByRef<MessageData>(core, MESSAGE, 'queued')).map((r) => r.data);
    let soonest = Infinity;
    for (const m of queued) {
      if (closed) return;
      if (m.next_attempt_ms > core.clock.now()) {
        soonest = Math.min(soonest, m.next_attempt_ms);
        continue;
      }
      const next = await sendOne(withMessageId(m, relay), relay);
      if (closed) return;
      await core.mutate(async (tx) => {
        // Written unless the message changed meanwhile (sent by another pass).
        const current = (await getRecord<MessageData>(tx, MESSAGE, m.id))?.data;
        if (current?.state === 'queued' && current.attempts === m.attempts) await putMessage(tx, next);
      });
      if (next.state === 'failed') core.logger.warn({ message: m.id, purpose: m.purpose }, 'mail message failed for the whole retry period');
      if (next.state === 'queued') soonest = Math.min(soonest, next.next_attempt_ms);
    }
    if (timer) clearTimeout(timer);
    if (Number.isFinite(soonest) && !closed) {
      timer = setTimeout(() => sender.pump(), Math.min(Math.max(soonest - core.clock.now(), 5), 2 ** 31 - 1));
      timer.unref();
    }
  };

  const sender: Sender = {
    pump() {
      if (closed) return;
      if (running) {
        again = true;
        return;
      }
      running = run()
        .catch((err: unknown) => core.logger.error({ err }, 'mail sender failed'))
        .finally(() => {
          running = undefined;
          if (again) {
            again = false;
            sender.pump();
          }
        });
    },
    async drain() {
      sender.pump();
      while (running) await running;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
  return sender;
}
