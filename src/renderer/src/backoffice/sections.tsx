import type { ReactNode } from 'react';
import { CustomersSection } from './Customers';
import { InvoicesSection } from './Invoices';
import { PaymentsSection } from './Payments';
import { OrdersSection } from './Orders';
import { UsersSection } from './Users';
import { AccountSection } from './Account';
import { SettlementSection } from './Settlement';
import { PosSection } from './Pos';
import { ImportsSection } from './Imports';
import { DevelopersSection } from './Developers';
import { SyncSection } from './Sync';
import { PaymentFrameSection } from './PaymentFrame';
import { GiftCardsSection } from './GiftCards';

/**
 * The back office's sections, one entry each: a section added later (imports, webhooks,
 * settlement) is one more line here. `grant` hides the section from roles that cannot read it
 * (the engine refuses them anyway); `rest` is the path after the section's own segment.
 */
export interface Section {
  key: string;
  label: string;
  grant: 'read' | 'users' | 'money';
  /** The path the side bar opens, after the section's segment (the spec's `/developers/webhook_responses`). */
  home?: string[];
  render(rest: string[]): ReactNode;
}

export const SECTIONS: Section[] = [
  { key: 'customers', label: 'Customers', grant: 'read', render: (rest) => <CustomersSection rest={rest} /> },
  { key: 'invoices', label: 'Invoices', grant: 'read', render: (rest) => <InvoicesSection rest={rest} /> },
  { key: 'payments', label: 'Payments', grant: 'read', render: (rest) => <PaymentsSection rest={rest} /> },
  { key: 'orders', label: 'Orders', grant: 'read', render: (rest) => <OrdersSection rest={rest} /> },
  { key: 'settlement', label: 'Settlement', grant: 'read', render: (rest) => <SettlementSection rest={rest} /> },
  { key: 'pos', label: 'Point of sale', grant: 'read', render: (rest) => <PosSection rest={rest} /> },
  // Reading a balance or loading a card moves money's worth (the engine's `money` grant): owners and managers.
  { key: 'gift_cards', label: 'Gift cards', grant: 'money', render: () => <GiftCardsSection /> },
  { key: 'imports', label: 'Imports', grant: 'read', render: (rest) => <ImportsSection rest={rest} /> },
  { key: 'developers', label: 'Webhooks and e-mail', grant: 'read', home: ['webhook_responses'], render: (rest) => <DevelopersSection rest={rest} /> },
  { key: 'payment_frame', label: 'Payment frame', grant: 'read', render: () => <PaymentFrameSection /> },
  { key: 'users', label: 'Users', grant: 'users', render: () => <UsersSection /> },
  { key: 'account', label: 'Account', grant: 'read', render: () => <AccountSection /> },
  { key: 'sync', label: 'Sync', grant: 'read', render: () => <SyncSection /> },
];
