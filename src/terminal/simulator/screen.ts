/** Draws the device's screen as a text box, the way the simulator prints it for a watching person. */
export const SCREEN_WIDTH = 28;

export function renderScreen(lines: readonly string[], title = ''): string {
  const width = SCREEN_WIDTH;
  const top = title ? `┌─ ${title} ${'─'.repeat(Math.max(0, width - title.length - 1))}┐` : `┌${'─'.repeat(width + 2)}┐`;
  const body = lines.map((line) => `│ ${line.slice(0, width).padEnd(width)} │`);
  return [top, ...body, `└${'─'.repeat(width + 2)}┘`].join('\n');
}

export function money(cents: number, currency: string): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${currency.toUpperCase()} ${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Two strings on one screen line, the second right-aligned. */
export function spread(left: string, right: string, width = SCREEN_WIDTH): string {
  const gap = Math.max(1, width - left.length - right.length);
  return `${left}${' '.repeat(gap)}${right}`;
}
