import type { Express } from 'express';
import type { Engine } from '../engine';
import { isEngineError } from '../engine/errors';
import { BANK_TEST_LIST, TEST_CARD_LIST } from '../engine/gateway/sandbox/test-data';
import { escapeHtml } from './ecommerce-assets';

/**
 * GET /pay/{key}: the click-to-pay page an invoice's pay_url opens (src/ecommerce-client/pay.ts
 * draws it from GET /api/pay/{key}). Its Content-Security-Policy loads nothing but its own script
 * and talks only to this server; no other page may frame it (a payment form is what clickjacking
 * aims at), and the key in its address is sent as a referrer to no other site nor kept in a cache.
 */
const PAGE_CSS = `
:root { font-family: system-ui, sans-serif; color: #1a1a1a; background: #f4f5f7; }
body { margin: 0; }
[hidden] { display: none !important; }
main { max-width: 34rem; margin: 2rem auto; background: #fff; padding: 1.5rem; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
h1 { font-size: 1.3rem; margin: 0 0 1rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0 0 1.25rem; }
dt { color: #555; } dd { margin: 0; font-variant-numeric: tabular-nums; }
#owing, #paidAmount { font-weight: 700; }
.field { display: flex; flex-direction: column; margin: 0 0 10px; }
label { font-size: 14px; margin-bottom: 3px; }
input, select { font: inherit; padding: 8px; border: 1px solid #8a8a8a; border-radius: 4px; }
input[aria-invalid="true"] { border-color: #b00020; }
.error { color: #b00020; font-size: 13px; min-height: 15px; }
fieldset.methods { border: 0; padding: 0; margin: 0 0 12px; }
fieldset.methods label { margin-right: 12px; }
button { font: inherit; font-weight: 600; padding: 10px 18px; border: 0; border-radius: 6px; background: #1f5fbf; color: #fff; cursor: pointer; }
button[disabled] { opacity: .6; cursor: progress; }
#formError { color: #b00020; }
#sandbox { background: #fff6d6; border: 1px solid #e0c050; padding: .5rem .75rem; border-radius: 4px; font-size: 14px; }
#notice { font-weight: 600; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
@media print { #payment, #sandbox, #print { display: none; } main { box-shadow: none; } }
`;

function payPage(key: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Pay an invoice</title><style>${PAGE_CSS}</style></head>
<body data-key="${escapeHtml(key)}"><main>
<h1 id="merchant">Pay an invoice</h1>
<dl id="details" aria-label="Invoice"><dt>Loading…</dt><dd></dd></dl>
<p id="sandbox" hidden>Sandbox: no real money moves. Cards: ${TEST_CARD_LIST}, any security code and a future expiry. Bank: ${BANK_TEST_LIST}.</p>
<p id="notice" role="alert" hidden></p>
<section id="payment" hidden aria-label="Payment">
<form id="paymentForm" novalidate autocomplete="on"></form>
<p id="formError" role="alert"></p><p id="status" role="status"></p>
</section>
<section id="receipt" hidden><h2 id="receiptTitle" tabindex="-1"></h2><p id="receiptMessage"></p><dl id="receiptDetails"></dl>
<button id="print" type="button">Print receipt</button></section>
</main><script src="/ecommerce/pay.js"></script></body></html>`;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function mountPayPage(app: Express, engine: Engine): void {
  app.get('/pay/:key', async (req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the page's own
    // POST, and one without Sec-Fetch-Site (Safari before 16.4) would then be refused as cross-site.
    // Nothing on the page leads elsewhere, so the key in its address still goes nowhere.
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    try {
      await engine.payLinks.view(req.params.key);
    } catch (err) {
      if (!isEngineError(err) || err.kind !== 'not_found') throw err;
      // The same page: it says the link is not valid (from the API's answer), in the page's words.
      res.status(404);
    }
    res.type('html').send(payPage(req.params.key));
  });
}
