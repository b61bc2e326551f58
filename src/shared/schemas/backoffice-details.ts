import { Type, type Static } from '@sinclair/typebox';
import { ref } from './components';
import { Comment } from './collaboration';
import { CustomerListItem } from './receivables-customers';

/** The back office's detail reads (Laneway's own operations, not in the reference API). */

export const CustomerChildren = Type.Object({
  parent_identifier: Type.String(),
  children: Type.Array(ref(CustomerListItem), { description: 'Child accounts (parent_identifier is this customer), identifier order, at most 500' }),
});
export type CustomerChildren = Static<typeof CustomerChildren>;

export const InvoiceThread = Type.Object({
  invoice_number: Type.String(),
  disputes: Type.Array(
    Type.Object({
      id: Type.Integer(),
      opened_at: Type.String({ format: 'date-time' }),
      closed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Null while open' }),
      opener: Type.String(),
      closer: Type.Union([Type.String(), Type.Null()]),
      opening_comment_text: Type.String(),
      closing_comment_text: Type.Union([Type.String(), Type.Null()]),
      reason: Type.String({ description: 'The reason label (English)' }),
    }),
    { description: 'Every dispute of the invoice, oldest first; at most one is open' },
  ),
  comments: Type.Array(ref(Comment), { description: 'Comments regarding the invoice (dispute comments included), oldest first' }),
});
export type InvoiceThread = Static<typeof InvoiceThread>;

export const InvoiceDocumentQuery = Type.Object({
  file_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'One attachment by its file name; without it, the primary attachment, else a rendering of the invoice' })),
});

export const OwedAgainQuery = Type.Object({
  amount_cents: Type.Optional(Type.Integer({ minimum: 1, description: 'The refund asked about, in minor units; without it, the void of the whole sale' })),
});

export const OwedAgain = Type.Object({
  payments: Type.Array(
    Type.Object({
      payment_reference: Type.String(),
      customer_identifier: Type.String(),
      customer_name: Type.String(),
      currency: Type.String(),
      invoices: Type.Array(
        Type.Object({
          invoice_number: Type.String(),
          display_number: Type.String(),
          owed_again_cents: Type.Integer({ description: 'What the invoice will owe more, in minor units (with a discount it took, when the whole payment is reversed)' }),
        }),
      ),
    }),
    { description: 'Each invoicing payment the sale paid that the refund or void takes money off, and the invoices it puts back owing; empty when the sale paid no invoice' },
  ),
});
export type OwedAgain = Static<typeof OwedAgain>;
