import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Express, Request, Response } from 'express';
import type { Engine } from '../engine';
import { originAllowed } from '../engine/ecommerce/settings';

/**
 * The browser side of the ecommerce API, built from src/ecommerce-client into out/ecommerce/
 * (`npm run build`): GET /client.js (the `versapay` SDK a shop's page loads) and the hosted payment
 * frame, GET /ecommerce/frame, an HTML page whose Content-Security-Policy lets only the account's
 * allowed origins frame it (`frame-ancestors`), load nothing but its own script, Google Fonts
 * stylesheets and fonts, and talk only to this server.
 */
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const SESSION = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;

const FRAME_CSS = `
:root { font-family: system-ui, sans-serif; color: #1a1a1a; }
body { margin: 0; padding: 8px; }
.field { display: flex; flex-direction: column; margin: 0 0 10px; }
.expiry { display: flex; gap: 10px; }
.expiry .field { flex: 1; }
label { font-size: 13px; margin-bottom: 3px; }
input, select { font: inherit; padding: 7px 8px; border: 1px solid #8a8a8a; border-radius: 4px; }
input[aria-invalid="true"] { border-color: #b00020; }
.error { color: #b00020; font-size: 12px; min-height: 14px; }
fieldset.methods { border: 0; padding: 0; margin: 0 0 10px; }
fieldset.methods label { margin-right: 12px; }
#status { font-size: 13px; }
#formError { color: #b00020; font-size: 13px; }
.using-saved .field, .using-saved .save { display: none; }
fieldset.saved { border: 0; padding: 0; margin: 0 0 10px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
`;

export { escape as escapeHtml };

function framePage(session: string, parentOrigin: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Secure payment form</title><style>${FRAME_CSS}</style></head>
<body data-session="${escape(session)}" data-parent-origin="${escape(parentOrigin)}">
<form id="paymentForm" novalidate autocomplete="on"><button type="submit" class="sr-only" tabindex="-1">Pay</button></form>
<p id="formError" role="alert"></p><p id="status" role="status"></p>
<script src="/ecommerce/frame.js"></script></body></html>`;
}

function refusal(res: Response, status: number, text: string): void {
  res.status(status).type('text').send(text);
}

export function mountEcommerceAssets(app: Express, engine: Engine, dir: string | undefined): void {
  const file = (name: string) => (dir && existsSync(join(dir, name)) ? readFileSync(join(dir, name)) : undefined);
  const script = (name: string, cors: boolean) => (_req: Request, res: Response) => {
    const body = file(name);
    if (!body) return refusal(res, 503, 'The ecommerce client is not built yet: run `npm run build`.');
    // Shops load client.js from their own pages: it carries no data, only code.
    if (cors) res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'no-cache');
    res.type('js').send(body);
  };
  app.get('/client.js', script('client.js', true));
  app.get('/ecommerce/frame.js', script('frame.js', false));
  app.get('/ecommerce/pay.js', script('pay.js', false));

  app.get('/ecommerce/frame', async (req, res) => {
    const session = typeof req.query.session === 'string' ? req.query.session : '';
    const origin = typeof req.query.origin === 'string' ? req.query.origin.toLowerCase() : '';
    if (!SESSION.test(session) || !ORIGIN.test(origin)) return refusal(res, 400, 'The frame needs ?session=<session id>&origin=<the page origin> (client.js sets them).');
    const allowed = await engine.ecommerce.frameAncestors();
    // The page may only be framed by allowed origins, and only ever talks to the one it was told.
    if (!originAllowed(origin, allowed)) return refusal(res, 403, `Pages on ${origin} may not show this payment frame: add the origin in the back office under Payment frame (or PUT /api/ecommerce/settings).`);
    res.removeHeader('X-Frame-Options');
    res.setHeader(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline' https://fonts.googleapis.com",
        'font-src https://fonts.gstatic.com',
        "connect-src 'self'",
        "img-src 'self' data:",
        "form-action 'none'",
        "base-uri 'none'",
        `frame-ancestors ${allowed.join(' ') || "'none'"}`,
      ].join('; '),
    );
    res.type('html').send(framePage(session, origin));
  });
}
