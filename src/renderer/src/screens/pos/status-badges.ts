/**
 * The register's status badges, worked out from what the engine answers (no figures computed
 * here): the card processor (card payments need it) and, on a lane, its sync with the hub.
 */
export interface Badge {
  text: string;
  /** `ok` | `warn` | `offline`: the badge's colour. */
  tone: 'ok' | 'warn' | 'offline';
  /** The longer explanation (tooltip, or the notice under the bar). */
  detail: string | null;
}

export function processorBadge(p: { reachable: boolean; message: string | null } | null | undefined): Badge | null {
  if (!p || p.reachable) return null;
  return { text: 'Card processor unreachable', tone: 'offline', detail: p.message };
}

export interface SyncPeerLike {
  peer: string;
  paused: boolean;
  last_success_at: string | null;
  last_error: string | null;
  queued: number;
}

const ago = (iso: string, now: number): string => {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
};

/** A lane's sync with its hub; null on an install that is not a lane of a hub. */
export function syncBadge(peers: readonly SyncPeerLike[] | null | undefined, now: number): Badge | null {
  const hub = peers?.find((p) => p.peer === 'hub');
  if (!hub) return null;
  const last = hub.last_success_at ? `last sync ${ago(hub.last_success_at, now)}` : 'never synced';
  const queued = hub.queued > 0 ? `, ${hub.queued} queued` : '';
  if (hub.paused) return { text: `Sync paused${queued}`, tone: 'warn', detail: `Sync with the hub is paused (${last}); sales are kept and sent when it resumes.` };
  if (hub.last_error) return { text: `Hub unreachable${queued}`, tone: 'offline', detail: `${hub.last_error} (${last}). Sales are kept and sent when the hub answers; gift cards are limited meanwhile.` };
  return { text: hub.queued > 0 ? `Syncing${queued}` : 'Synced', tone: hub.queued > 0 ? 'warn' : 'ok', detail: `${last[0]!.toUpperCase()}${last.slice(1)}.` };
}
