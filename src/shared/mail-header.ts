/**
 * The response header of the operations that queue e-mail (reminders, direct messages,
 * invitations): the ids of the outbox messages queued, comma-separated (empty: none). A message is
 * queued, not yet delivered, when the operation answers; `GET /api/notifications/outbox?ids=` reads
 * what became of each. Ours: the reference's answers (their bodies) are left as they are.
 */
export const MAIL_MESSAGES_HEADER = 'Laneway-Mail-Messages';
/** Ids listed in the header at most (the first ones queued). */
export const MAIL_MESSAGES_HEADER_MAX = 100;
