import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { EMAIL_RE } from '../receivables/problems';
import { getRecord, putRecord, recordId } from '../records';
import type { InstallKeys } from '../security/install-keys';
import { openSecret, sealSecret, type SealedSecret } from '../webhooks/signing';
import type { RelayCheck } from './check';

/**
 * The SMTP relay of the account settings. Without one the install is in sandbox mode: each message
 * stays in the local mail outbox (readable with GET /api/notifications/outbox) and goes nowhere.
 * The password is sealed under the install key purpose `settings_secret`, never stored in clear.
 */
export const RELAY = 'mail_relay';
const SLOT = 'smtp';

interface RelayData {
  host: string;
  port: number;
  /** true: TLS from the first byte (port 465); false: STARTTLS (required before AUTH to a relay not on this machine, ./transport.ts). */
  secure: boolean;
  user: string;
  password: SealedSecret | null;
  from: string;
  updated_at: string;
  /** What trying the relay found when it was saved (./check.ts); absent on a relay saved before saves tried it. */
  check?: RelayCheck;
}

export interface RelayInput {
  host: string;
  port: number;
  secure?: boolean;
  user?: string;
  /** Omitted: keep the stored one. Empty: none. */
  password?: string;
  from: string;
}

export interface RelayView {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password_set: boolean;
  from: string;
  updated_at: string;
  check: RelayCheck | null;
}

export interface RelayConfig {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
  from: string;
}


export async function relayView(reader: Tx | EngineCore): Promise<RelayView | null> {
  const d = (await getRecord<RelayData>(reader, RELAY, SLOT))?.data;
  return d ? { host: d.host, port: d.port, secure: d.secure, user: d.user, password_set: d.password !== null, from: d.from, updated_at: d.updated_at, check: d.check ?? null } : null;
}

/** The relay's record's watermark: every delivery attempt written after it was made with these settings. */
export async function relayWatermark(reader: Tx | EngineCore): Promise<number | null> {
  return (await getRecord<RelayData>(reader, RELAY, SLOT))?.watermark ?? null;
}

export async function relayConfig(reader: Tx | EngineCore, keys: InstallKeys): Promise<RelayConfig | null> {
  const d = (await getRecord<RelayData>(reader, RELAY, SLOT))?.data;
  if (!d) return null;
  return { host: d.host, port: d.port, secure: d.secure, user: d.user, password: d.password ? openSecret(keys, d.password) : '', from: d.from };
}

/** Refuses what may not be saved (host, sender), before anything is tried or written. */
export function validateRelay(input: RelayInput): void {
  if (!/^[A-Za-z0-9.-]+$/.test(input.host) && !/^\[?[0-9a-fA-F:.]+\]?$/.test(input.host)) throw fail.invalid('invalid_smtp_host', 'host is a host name or an IP address', [{ field: 'host', message: 'host name' }]);
  // A line break or other control character in the sender would start a header of its own when a
  // mail library less careful than ours writes it: refused when saved, not cleaned when sent.
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(input.from)) throw fail.invalid('invalid_from', 'from may not hold a line break or another control character', [{ field: 'from', message: 'one line, no control characters' }]);
  // One mailbox: an address, or a name (quoted, or without the characters that separate
  // addresses) and <address>. "a@evil.test, <shop@x.test>" would make the first the sender.
  const mailbox = /^\s*(?:(?:"[^"\\]*"|[^"<>,;@]*)\s*<([^<>]+)>|([^<>\s]+))\s*$/.exec(input.from);
  const fromAddress = mailbox?.[1] ?? mailbox?.[2] ?? '';
  if (!EMAIL_RE.test(fromAddress)) throw fail.invalid('invalid_from', 'from is one email address (optionally "Name <address>")', [{ field: 'from', message: 'one email address' }]);
}

/** The relay `input` would make, its password the stored one when `input` omits it: what a save tries before it writes. */
export async function relayConfigOf(reader: Tx | EngineCore, keys: InstallKeys, input: RelayInput): Promise<RelayConfig> {
  const stored = (await getRecord<RelayData>(reader, RELAY, SLOT))?.data;
  const password = input.password === undefined ? (stored?.password ? openSecret(keys, stored.password) : '') : input.password;
  return { host: input.host, port: input.port, secure: input.secure ?? input.port === 465, user: input.user ?? '', password, from: input.from };
}

export async function setRelay(tx: Tx, keys: InstallKeys, input: RelayInput, check?: RelayCheck): Promise<RelayView> {
  validateRelay(input);
  const stored = (await getRecord<RelayData>(tx, RELAY, SLOT))?.data;
  const password = input.password === undefined ? (stored?.password ?? null) : input.password === '' ? null : sealSecret(keys, input.password);
  const data: RelayData = { host: input.host, port: input.port, secure: input.secure ?? input.port === 465, user: input.user ?? '', password, from: input.from, updated_at: tx.at, ...(check ? { check } : {}) };
  await putRecord(tx, RELAY, SLOT, data, { type: 'mail_relay.updated', entity: 'mail_relay', key: SLOT, data: { host: data.host } });
  return (await relayView(tx))!;
}

export async function removeRelay(tx: Tx): Promise<void> {
  await tx.remove('records', recordId(RELAY, SLOT), { type: 'mail_relay.removed', entity: 'mail_relay', key: SLOT });
}
