/**
 * A customer's web site as a link. The import accepts only what this turns into an href and the
 * screens link only what it returns, so a `javascript:` or `data:` address, which a browser runs
 * when the link is clicked, is never a link: refused when sent, shown as text if one was stored
 * before the rule.
 *
 * An http or https URL with a host; or a bare host name with a dot, as the reference's own example
 * (`www.acmeinc.com`) and many ERPs write it, which links over https. No user name or password: an
 * address such as `https://bank.example@evil.example` reads as one site and opens another.
 */
export function webHref(text: string): string | undefined {
  const t = text.trim();
  if (!t || /[\s\p{Cc}\\]/u.test(t)) return undefined;
  const schemed = /^https?:\/\//i.test(t);
  // Anything else that names a scheme (javascript:, data:, ftp:...) is not a web site; host:port is.
  if (!schemed && /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(t)) return undefined;
  let url: URL;
  try {
    url = new URL(schemed ? t : `https://${t}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  // A web site's host has a dot (or is an IPv6 literal): `javascript:1` read as host:port has none.
  if (!url.hostname.includes('.') && !url.hostname.startsWith('[')) return undefined;
  return url.href;
}

export const WEB_ADDRESS_RULE = 'must be a web address, http or https (such as https://www.acmeinc.com or www.acmeinc.com)';
