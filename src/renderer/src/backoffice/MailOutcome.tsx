import type { ReactNode } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { sentence, time } from '../format';
import { useRoute } from '../state/route';
import { useLoad } from './common';
import './operations.css';

/**
 * What became of the e-mail an operation queued (an invitation, a reminder): the engine names the
 * messages (the Laneway-Mail-Messages header), the outbox says whether each went, and the relay's
 * status says why one waits. A screen says "sent" only once the outbox has it delivered.
 */
type Message = BoAnswer<'outbox'>['messages'][number];
export type MailStatus = BoAnswer<'mail'>['status'];

/** `none`: nothing was queued; `sandbox`: kept in the outbox, e-mailed to nobody. */
export type Delivery = 'none' | 'queued' | 'sent' | 'failed' | 'sandbox';

export const OUTBOX = '/app/developers/mail';

function deliveryOf(ids: readonly string[], messages: Message[] | undefined, mode: 'smtp' | 'sandbox' | undefined): Delivery {
  if (ids.length === 0) return 'none';
  // Until the outbox is read, what the operation's answer said: queued, not delivered.
  if (!messages || messages.length < ids.length) return mode === 'sandbox' ? 'sandbox' : 'queued';
  if (messages.some((m) => m.state === 'failed')) return 'failed';
  if (messages.every((m) => m.state === 'sent')) return messages.some((m) => m.transport === 'sandbox') ? 'sandbox' : 'sent';
  return mode === 'sandbox' ? 'sandbox' : 'queued';
}

/** The messages `ids` as the outbox has them now, read again on every live change (a message sent is one). */
export function useDelivery(ids: readonly string[] | null): { delivery: Delivery; status: MailStatus | undefined; error: string | null } {
  const key = ids?.join(',') ?? '';
  const { data } = useLoad(async (c) => {
    if (!ids) return undefined;
    const [page, mail] = await Promise.all([ids.length ? boCall(c, 'outbox', { query: { limit: ids.length, ids: key } }) : undefined, boCall(c, 'mail', {})]);
    return { messages: page?.messages, mail };
  }, [key, ids === null]);
  const failed = data?.messages?.find((m) => m.state === 'failed');
  return { delivery: deliveryOf(ids ?? [], data?.messages, data?.mail.mode), status: data?.mail.status, error: failed?.error ?? null };
}

/** What to say of the messages, whose subject is `what` ("Invitation to ap@acme.test"). */
export interface DeliveryWords {
  queued: string;
  sent: string;
  sandbox: string;
  failed: string;
  none: string;
}

/** The sentence for the outcome; while queued, the relay's trouble too when it is failing. */
export function deliveryText(words: DeliveryWords, delivery: Delivery, status: MailStatus | undefined, error: string | null): string {
  switch (delivery) {
    case 'queued': {
      const failing = status?.state === 'failing' ? ` ${sentence(`The mail relay is failing${status.last_error ? ` (${status.last_error})` : ''}${status.next_retry_at ? `; next try ${time(status.next_retry_at)}` : ''}`)}` : '';
      return `${words.queued}: it goes out when the mail relay answers.${failing}`;
    }
    case 'sent':
      return `${words.sent}.`;
    case 'sandbox':
      return `${words.sandbox} kept in the Outbox, not e-mailed: no mail relay is set (sandbox mode).`;
    case 'failed':
      return `${words.failed} not sent: the mail relay did not take it in three days of tries${error ? ` (${error})` : ''}.`;
    default:
      return words.none;
  }
}

export const deliveryTone = (d: Delivery) => (d === 'sent' ? 'ok' : d === 'failed' ? 'error' : 'warn');

/** A link to the Outbox, inside the back office. */
export function OutboxLink({ children = 'Open the Outbox' }: { children?: ReactNode }) {
  const go = useRoute((s) => s.go);
  return (
    <a href={OUTBOX} onClick={(e) => (e.preventDefault(), go(OUTBOX))}>
      {children}
    </a>
  );
}

/** The outcome (of useDelivery) as a notice: the sentence, and the way to the Outbox where each message is shown. */
export function DeliveryNotice({ words, outcome, label }: { words: DeliveryWords; outcome: ReturnType<typeof useDelivery>; label: string }) {
  const { delivery, status, error } = outcome;
  return (
    <p role="status" aria-label={label} className={`notice ${deliveryTone(delivery)} bo-counts`}>
      {deliveryText(words, delivery, status, error)}
      {delivery !== 'none' && (
        <>
          {' '}
          <OutboxLink />
        </>
      )}
    </p>
  );
}
