/**
 * Calendar days as the API writes them (YYYY-MM-DD), shared by the engine and the screens: a
 * screen's "today in the shop" is the engine's, on the same time zone's calendar.
 */

// Making a DateTimeFormat costs about a millisecond (it loads the zone's rules); every unit of
// work and export page asks for today's date, so one per zone is kept.
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function dateInZone(ms: number, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(ms);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}
