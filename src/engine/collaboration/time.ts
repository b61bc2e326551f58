/** Instants as the reference's collaboration records write them: `YYYY-MM-DDTHH:MM:SS+HH:MM` in the account's zone. */
const formats = new Map<string, Intl.DateTimeFormat>();

function parts(ms: number, timeZone: string): Record<string, string> {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset' });
    formats.set(timeZone, f);
  }
  return Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
}

function offsetOf(ms: number, timeZone: string): string {
  const name = parts(ms, timeZone).timeZoneName ?? 'GMT';
  return name === 'GMT' ? '+00:00' : name.slice(3);
}

export function isoInZone(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offsetOf(ms, timeZone)}`;
}

const offsetMs = (offset: string) => {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
};

/**
 * A disputes watermark (`yyyy-mm-dd` or `yyyy-mm-ddThh:mm:ss`, local time of the account's zone)
 * as an instant; undefined when it is neither form.
 */
export function parseLocalDateTime(text: string, timeZone: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2}))?$/.exec(text);
  if (!m) return undefined;
  const naive = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  // Date.UTC rolls a day or month past its end over (2026-13-01 is 2027-01-01): read it back whole.
  const back = new Date(naive);
  const fields = [back.getUTCFullYear(), back.getUTCMonth() + 1, back.getUTCDate(), back.getUTCHours(), back.getUTCMinutes(), back.getUTCSeconds()];
  if (Number.isNaN(naive) || fields.some((v, i) => v !== Number(m[i + 1] ?? 0))) return undefined;
  // The zone's offset at that wall time (checked once more at the result, for a DST edge).
  const first = naive - offsetMs(offsetOf(naive, timeZone));
  return naive - offsetMs(offsetOf(first, timeZone));
}
