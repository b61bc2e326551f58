// The very files docs/csv-imports.md describes and test/imports/samples.test.ts imports: a shop
// starts from a file that is known to import, in the app and in the docs alike.
import credit_cards from '../../../../resources/samples/credit_cards.csv?raw';
import customers from '../../../../resources/samples/customers.csv?raw';
import divisions from '../../../../resources/samples/divisions.csv?raw';
import invoice_recon from '../../../../resources/samples/invoice_recon.csv?raw';
import invoices from '../../../../resources/samples/invoices.csv?raw';
import payment_recon from '../../../../resources/samples/payment_recon.csv?raw';
import payments from '../../../../resources/samples/payments.csv?raw';

export const CSV_SAMPLES = { customers, invoices, payments, divisions, credit_cards, invoice_recon, payment_recon } as const;
