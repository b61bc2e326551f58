import { Type } from '@sinclair/typebox';
import type { ResponseSpec } from './route';
import type { Queued } from '../engine/notifications';
import { MAIL_MESSAGES_HEADER, MAIL_MESSAGES_HEADER_MAX } from '../shared/mail-header';

/**
 * The ids of the messages an operation queued, as a response header: the reference's answer (the
 * counts, `{}`) stays as it is, and a screen can still tell a message queued from one delivered.
 */
export const mailHeaders = (q: Queued): Record<string, string> => ({ [MAIL_MESSAGES_HEADER]: q.messages.slice(0, MAIL_MESSAGES_HEADER_MAX).join(',') });
export const MAIL_HEADER_DOC: NonNullable<ResponseSpec['headers']> = {
  [MAIL_MESSAGES_HEADER]: {
    description: `Ours: the ids of the outbox messages queued (comma-separated, the first ${MAIL_MESSAGES_HEADER_MAX}; empty when none). Each is queued, not yet delivered, when this answers: \`GET /api/notifications/outbox?ids=\` says whether it was sent, or why it waits (a relay that does not answer).`,
    schema: Type.String(),
  },
};
