import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import type { CustomerPage } from '../../src/shared/schemas/backoffice';
import type { CustomerChildren, InvoiceThread } from '../../src/shared/schemas/backoffice-details';

/** The back office's detail reads over HTTP: children, the list by balance, an invoice's thread and PDF. */
const h = useHarness({ api: true });
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n').toString('base64');
const byBalance = async (qs = '') => (await h.api.get<CustomerPage>(`/api/backoffice/customers?sort=balance&${qs}`)).body;

describe('back-office details', () => {
  beforeAll(async () => {
    for (const c of ['BD-PARENT', 'BD-A', 'BD-B', 'BD-C']) expect((await h.api.post('/api/imports/customer', { identifier: c, name: `${c} Ltd` })).status).toBeLessThan(300);
    for (const c of ['BD-A', 'BD-B']) { const r = await h.api.post('/api/imports/customer', { identifier: c, name: `${c} Ltd`, parent_identifier: 'BD-PARENT' }); expect(r.status, r.text).toBeLessThan(300); }
    const rows = [['BD-1', 'BD-A', 5000], ['BD-2', 'BD-B', 90000], ['BD-3', 'BD-C', 20000], ['BD-4', 'BD-A', 100]] as const;
    for (const [number, customer, amount] of rows) {
      expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customer, amount, date: '2026-02-20', due_date: '2026-03-20' })).status).toBeLessThan(300);
    }
  });

  it("lists a customer's child accounts", async () => {
    const r = await h.api.get<CustomerChildren>('/api/backoffice/customers/BD-PARENT/children');
    expect(r.body.children.map((c) => [c.identifier, c.parent_identifier])).toEqual([['BD-A', 'BD-PARENT'], ['BD-B', 'BD-PARENT']]);
    expect((await h.api.get<CustomerChildren>('/api/backoffice/customers/BD-C/children')).body.children).toEqual([]);
    expect((await h.api.get('/api/backoffice/customers/NOBODY/children')).status).toBe(404);
  });

  it('sorts customers by balance on the server, largest first, and pages with the cursor', async () => {
    const all = await byBalance('q=BD-');
    expect(all.items.map((c) => [c.identifier, c.balance_cents])).toEqual([['BD-B', 90000], ['BD-C', 20000], ['BD-A', 5100], ['BD-PARENT', 0]]);
    const first = await byBalance('limit=2');
    expect(first.items.map((c) => c.identifier)).toEqual(['BD-B', 'BD-C']);
    const second = await byBalance(`limit=2&after=${encodeURIComponent(first.next!)}`);
    expect(second.items.map((c) => c.identifier)).toEqual(['BD-A', 'BD-PARENT']);
    // A payment moves the order: the rank follows every write.
    expect((await h.api.post('/api/imports/payment', { identifier: 'BD-CHQ', invoice_number: 'BD-2', amount_cents: 89000, customer_identifier: 'BD-B', external_payment_type: 'cheque' })).status).toBe(201);
    expect((await byBalance('q=BD-')).items.map((c) => c.identifier)).toEqual(['BD-C', 'BD-A', 'BD-B', 'BD-PARENT']);
  });

  it("answers an invoice's disputes and comments, and only that invoice's", async () => {
    expect((await h.api.post('/api/invoices/BD-1/disputes', { opener: 'ap@bd-a.test', comment: 'Wrong quantity' })).status).toBe(201);
    expect((await h.api.post('/api/invoices/BD-4/comments', { comment: 'About the other one' })).status).toBe(201);
    expect((await h.api.post('/api/invoices/BD-1/comments', { comment: 'Called them back' })).status).toBe(201);
    expect((await h.api.post('/api/invoices/BD-1/disputes/close', { comment: 'Credit note sent' })).status).toBe(201);
    const t = (await h.api.get<InvoiceThread>('/api/backoffice/invoices/BD-1/thread')).body;
    expect(t.disputes.map((d) => [d.opener, d.opening_comment_text, d.closed_at !== null, d.closing_comment_text])).toEqual([['ap@bd-a.test', 'Wrong quantity', true, 'Credit note sent']]);
    expect(t.comments.map((c) => c.comment)).toEqual(['Wrong quantity', 'Called them back', 'Credit note sent']);
    expect((await h.api.get('/api/backoffice/invoices/NOPE/thread')).status).toBe(404);
  });

  it("sends an invoice's PDF: the attachment when there is one, else a rendering", async () => {
    const viaClient = await h.api.get('/api/backoffice/invoices/BD-3/document');
    expect(viaClient.status).toBe(200);
    expect(viaClient.headers.get('content-type')).toContain('application/pdf');
    expect(viaClient.text.startsWith('%PDF-')).toBe(true);
    expect((await h.api.post('/api/imports/invoice/BD-3/attachment', { find_by: 'number', file_name: 'bd-3.pdf', content: PDF })).status).toBe(200);
    const stored = await h.api.get('/api/backoffice/invoices/BD-3/document');
    expect(stored.text).toBe(Buffer.from(PDF, 'base64').toString('latin1'));
    expect(stored.headers.get('content-disposition')).toBe('inline; filename="bd-3.pdf"');
    expect((await h.api.get('/api/backoffice/invoices/BD-3/document?file_name=other.pdf')).status).toBe(404);
  });

  it('finds by balance the customers a search finds by identifier: a name, an identifier in lower case, a prefix', async () => {
    for (const [identifier, name] of [['BDN-100', 'Boulangerie Côté'], ['BDN-200', 'Côté Électrique'], ['BDN-300', 'Quincaillerie Nord']]) {
      expect((await h.api.post('/api/imports/customer', { identifier, name })).status).toBeLessThan(300);
    }
    expect((await h.api.post('/api/imports/invoice', { number: 'BDN-INV-1', customer_identifier: 'BDN-200', amount: 4000, date: '2026-02-20', due_date: '2026-03-20' })).status).toBeLessThan(300);
    expect((await h.api.post('/api/imports/invoice', { number: 'BDN-INV-2', customer_identifier: 'BDN-100', amount: 1500, date: '2026-02-20', due_date: '2026-03-20' })).status).toBeLessThan(300);
    const ids = async (q: string, sort = '') => (await h.api.get<CustomerPage>(`/api/backoffice/customers?q=${encodeURIComponent(q)}${sort}`)).body.items.map((c) => c.identifier);
    // By the words of a name, without the accents typed: the same customers, largest balance first.
    expect((await ids('cote')).sort()).toEqual(['BDN-100', 'BDN-200']);
    expect(await ids('cote', '&sort=balance')).toEqual(['BDN-200', 'BDN-100']);
    expect(await ids('boulangerie COTÉ', '&sort=balance')).toEqual(['BDN-100']);
    // An identifier typed in lower case, and a prefix, as without the sort.
    expect(await ids('bdn-3', '&sort=balance')).toEqual(['BDN-300']);
    expect(await ids('BDN-', '&sort=balance')).toEqual(['BDN-200', 'BDN-100', 'BDN-300']);
    expect(await ids('nobody at all', '&sort=balance')).toEqual([]);
    // With a status: closed customers only, of which none is named so.
    expect((await byBalance('q=cote&status=closed')).items).toEqual([]);
  });
});
