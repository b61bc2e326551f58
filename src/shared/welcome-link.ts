/**
 * The one-time sign-in link's address: the secret, then whose it is, both in the fragment (never
 * sent to the server, so never in a request log). The welcome page names the e-mail, which is
 * what its holder signs in with afterwards.
 */
export const welcomeLink = (base: string, secret: string, email: string): string => `${base}/app/welcome#link=${secret}&email=${encodeURIComponent(email)}`;

/** The link's parts as the welcome page reads them from `location.hash`. */
export function readWelcomeLink(hash: string): { secret: string; email: string | null } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return { secret: params.get('link') ?? '', email: params.get('email') };
}
