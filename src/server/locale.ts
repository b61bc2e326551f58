import type { Request } from 'express';

/**
 * The locale a screen asked its messages in (Accept-Language, the first tag Intl supports), so
 * that amounts in a message read the way the screen shows them. None: the engine's default.
 */
export function requestLocale(req: Request): string | undefined {
  const header = req.get('accept-language');
  if (!header || header.length > 200) return undefined;
  const tags = header
    .split(',')
    .map((part) => part.split(';')[0]!.trim())
    .filter((tag) => tag && tag !== '*' && /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag));
  for (const tag of tags) {
    try {
      const [supported] = Intl.NumberFormat.supportedLocalesOf(tag);
      if (supported) return supported;
    } catch {
      // not a well-formed tag: the next one
    }
  }
  return undefined;
}
