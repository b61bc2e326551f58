import { Type } from '@sinclair/typebox';
import { AccountPatch, AccountSettings, Credential, CredentialCreate, CredentialCreated } from '../schemas/account';
import { ref } from '../schemas/components';
import { AgingQuery, AgingSummary, CustomerListQuery, CustomerPage, InvoiceListQuery, InvoicePage, OrderListQuery, OrderPage, PaymentListQuery, PaymentPage, SearchQuery, SearchResult, TransactionListQuery, TransactionPage } from '../schemas/backoffice';
import { OrderTransaction, TransactionRequest, TransactionResponse } from '../schemas/gateway';
import { Order } from '../schemas/orders';
import { Sale } from '../schemas/register-sales';
import { ImportResult } from '../schemas/receivables-common';
import { CustomerImport, CustomerImportQuery, CustomerView } from '../schemas/receivables-customers';
import { InvoiceImport, InvoiceImportQuery, InvoiceImportResult, InvoiceView, InvoiceViewQuery } from '../schemas/receivables-invoices';
import { CreditApplications, PaymentImport, PaymentImportQuery, PaymentView, PaymentViewQuery } from '../schemas/receivables-payments';
import { LinkBody, SignInBody, User, UserCreate, UserCreated, UserList, UserPatch, UserSession } from '../schemas/users';
import { InstallStatus } from '../schemas/system';
import { BatchesAnswer, BatchesQuery, ExceptionsAnswer, ExceptionsQuery, MonthlyStatementDocument, StatementsAnswer, StatementsQuery } from '../schemas/settlement';
import { SandboxClockMove, SandboxClockState } from '../schemas/sandbox-clock';
import { Cashier, CashierCreate, CashierPatch, CashierWithCode, Product, ProductCreate, ProductList, ProductPatch, ProductQuery } from '../schemas/register-catalog';
import { RegisterReport, ZList } from '../schemas/register-reports';
import { Lane, LaneCreate, LaneDeleted, LaneList, LanePatch, TerminalRequest, TerminalResponse } from '../schemas/lanes';
import { BatchErrors, BatchPageQuery, FileImport, ImportUploadQuery, InvoiceReconPage, PaymentReconPage, ReconQuery } from '../schemas/imports';
import { EmptyWebhookBody, SigningKeyRolled, WebhookEndpoint, WebhookEndpointCreate, WebhookEndpointCreated, WebhookEndpointPatch, WebhookResponse, WebhookResponsesPage, WebhookResponsesQuery, WebhookSettings } from '../schemas/webhooks';
import { EcommerceSettings, EcommerceSettingsView } from '../schemas/ecommerce';
import { MailRelay, MailRelayInput, MailSettings, OutboxPage, OutboxQuery } from '../schemas/notifications';
import { backofficeRoutes } from './backoffice-routes';
import { PairedLane, PairedLaneList, PairingCode, PairingCodeCreate, ResolutionQuery, SyncException, SyncExceptionHandle, SyncResolutions, SyncStatus, UpstreamSet, UpstreamView } from '../schemas/sync';
import type { Endpoint } from './pos';
import { CustomerChildren, InvoiceDocumentQuery, InvoiceThread, OwedAgain, OwedAgainQuery } from '../schemas/backoffice-details';
import { AutopayCreate, AutopayLookup, AutopayPreview, AutopayPreviewQuery, AutopayRetrieveResponse, AutopayRevoke, GiftCardLoad, GiftCardLoadResponse, GiftCardRead, GiftCardReadResponse, Wallet, WalletSearchQuery } from '../schemas/wallets';
import { InvitationBody } from '../schemas/receivables-customers';
import { ReminderCounts } from '../schemas/notifications';
import { CommentCreate, DisputeClose, DisputeOpen, IdentifierMessage } from '../schemas/collaboration';

/**
 * The calls the back-office screens make, declared once, as `posEndpoints` is for the register
 * (./pos.ts): the renderer imports this for its types only, and test/server/renderer-contract.test.ts
 * holds each entry to the server route's very schemas.
 */
export const backofficeEndpoints = {
  signIn: { ...backofficeRoutes.signIn, body: SignInBody, response: UserSession },
  redeemLink: { ...backofficeRoutes.redeemLink, body: LinkBody, response: UserSession },
  session: { ...backofficeRoutes.session, response: UserSession },
  signOut: { ...backofficeRoutes.signOut, response: Type.Object({}) },
  users: { ...backofficeRoutes.users, response: UserList },
  createUser: { ...backofficeRoutes.createUser, body: UserCreate, response: UserCreated },
  updateUser: { ...backofficeRoutes.updateUser, body: UserPatch, response: User },
  userLink: { ...backofficeRoutes.userLink, response: UserCreated },
  search: { ...backofficeRoutes.search, query: SearchQuery, response: SearchResult },
  customers: { ...backofficeRoutes.customers, query: CustomerListQuery, response: CustomerPage },
  customer: { ...backofficeRoutes.customer, response: CustomerView },
  saveCustomer: { ...backofficeRoutes.saveCustomer, query: CustomerImportQuery, body: CustomerImport, response: ImportResult },
  invoices: { ...backofficeRoutes.invoices, query: InvoiceListQuery, response: InvoicePage },
  aging: { ...backofficeRoutes.aging, query: AgingQuery, response: AgingSummary },
  invoice: { ...backofficeRoutes.invoice, query: InvoiceViewQuery, response: InvoiceView },
  saveInvoice: { ...backofficeRoutes.saveInvoice, query: InvoiceImportQuery, body: InvoiceImport, response: InvoiceImportResult },
  payments: { ...backofficeRoutes.payments, query: PaymentListQuery, response: PaymentPage },
  payment: { ...backofficeRoutes.payment, query: PaymentViewQuery, response: PaymentView },
  recordPayment: { ...backofficeRoutes.recordPayment, query: PaymentImportQuery, body: PaymentImport, response: ImportResult },
  applyCredit: { ...backofficeRoutes.applyCredit, body: CreditApplications, response: PaymentView },
  orders: { ...backofficeRoutes.orders, query: OrderListQuery, response: OrderPage },
  transactions: { ...backofficeRoutes.transactions, query: TransactionListQuery, response: TransactionPage },
  order: { ...backofficeRoutes.order, response: Order },
  registerSale: { ...backofficeRoutes.registerSale, response: Sale },
  transaction: { ...backofficeRoutes.transaction, response: OrderTransaction },
  capture: { ...backofficeRoutes.capture, body: TransactionRequest, response: TransactionResponse },
  void: { ...backofficeRoutes.void, body: TransactionRequest, response: TransactionResponse },
  refund: { ...backofficeRoutes.refund, body: TransactionRequest, response: TransactionResponse },
  account: { ...backofficeRoutes.account, response: AccountSettings },
  updateAccount: { ...backofficeRoutes.updateAccount, body: AccountPatch, response: AccountSettings },
  // The route declares this answer inline: the same shape, held equal by the contract test.
  credentials: { ...backofficeRoutes.credentials, response: Type.Object({ credentials: Type.Array(ref(Credential)) }) },
  createCredential: { ...backofficeRoutes.createCredential, body: CredentialCreate, response: CredentialCreated },
  disableCredential: { ...backofficeRoutes.disableCredential, response: Credential },
  status: { ...backofficeRoutes.status, response: InstallStatus },
  batches: { ...backofficeRoutes.batches, query: BatchesQuery, response: BatchesAnswer },
  exceptions: { ...backofficeRoutes.exceptions, query: ExceptionsQuery, response: ExceptionsAnswer },
  statements: { ...backofficeRoutes.statements, query: StatementsQuery, response: StatementsAnswer },
  statement: { ...backofficeRoutes.statement, response: MonthlyStatementDocument },
  advanceClock: { ...backofficeRoutes.advanceClock, body: SandboxClockMove, response: SandboxClockState },
  posProducts: { ...backofficeRoutes.posProducts, query: ProductQuery, response: ProductList },
  createProduct: { ...backofficeRoutes.createProduct, body: ProductCreate, response: Product },
  updateProduct: { ...backofficeRoutes.updateProduct, body: ProductPatch, response: Product },
  // The route declares this answer inline: the same shape, held equal by the contract test.
  posCashiers: { ...backofficeRoutes.posCashiers, response: Type.Object({ cashiers: Type.Array(ref(Cashier)) }) },
  createCashier: { ...backofficeRoutes.createCashier, body: CashierCreate, response: CashierWithCode },
  resetCashierCode: { ...backofficeRoutes.resetCashierCode, response: CashierWithCode },
  updateCashier: { ...backofficeRoutes.updateCashier, body: CashierPatch, response: Cashier },
  lanes: { ...backofficeRoutes.lanes, response: LaneList },
  createLane: { ...backofficeRoutes.createLane, body: LaneCreate, response: Lane },
  updateLane: { ...backofficeRoutes.updateLane, body: LanePatch, response: Lane },
  deleteLane: { ...backofficeRoutes.deleteLane, response: LaneDeleted },
  terminal: { ...backofficeRoutes.terminal, body: TerminalRequest, response: TerminalResponse },
  zReports: { ...backofficeRoutes.zReports, response: ZList },
  zReport: { ...backofficeRoutes.zReport, response: RegisterReport },
  // Multipart: no JSON body to declare (the route documents its parts as `multipartBody`).
  uploadImport: { ...backofficeRoutes.uploadImport, query: ImportUploadQuery, response: FileImport },
  imports: { ...backofficeRoutes.imports, query: BatchPageQuery, response: Type.Array(ref(FileImport)) },
  importBatch: { ...backofficeRoutes.importBatch, response: FileImport },
  importErrors: { ...backofficeRoutes.importErrors, response: BatchErrors },
  importErrorsCsv: { ...backofficeRoutes.importErrorsCsv, response: Type.String() },
  importEcho: { ...backofficeRoutes.importEcho, response: Type.String() },
  invoiceRecon: { ...backofficeRoutes.invoiceRecon, query: ReconQuery, response: InvoiceReconPage },
  paymentRecon: { ...backofficeRoutes.paymentRecon, query: ReconQuery, response: PaymentReconPage },
  webhooks: { ...backofficeRoutes.webhooks, response: WebhookSettings },
  createWebhook: { ...backofficeRoutes.createWebhook, body: WebhookEndpointCreate, response: WebhookEndpointCreated },
  updateWebhook: { ...backofficeRoutes.updateWebhook, body: WebhookEndpointPatch, response: WebhookEndpoint },
  deleteWebhook: { ...backofficeRoutes.deleteWebhook, response: Type.Object({}) },
  rollSigningKey: { ...backofficeRoutes.rollSigningKey, body: EmptyWebhookBody, response: SigningKeyRolled },
  webhookResponses: { ...backofficeRoutes.webhookResponses, query: WebhookResponsesQuery, response: WebhookResponsesPage },
  resendWebhook: { ...backofficeRoutes.resendWebhook, body: EmptyWebhookBody, response: WebhookResponse },
  mail: { ...backofficeRoutes.mail, response: MailSettings },
  setMailRelay: { ...backofficeRoutes.setMailRelay, body: MailRelayInput, response: MailRelay },
  removeMailRelay: { ...backofficeRoutes.removeMailRelay, response: Type.Object({}) },
  outbox: { ...backofficeRoutes.outbox, query: OutboxQuery, response: OutboxPage },
  ecommerceSettings: { ...backofficeRoutes.ecommerceSettings, response: EcommerceSettingsView },
  setEcommerceSettings: { ...backofficeRoutes.setEcommerceSettings, body: EcommerceSettings, response: EcommerceSettingsView },
  // The routes declare the inline answers below: the same shapes, held equal by the contract test.
  customerChildren: { ...backofficeRoutes.customerChildren, response: CustomerChildren },
  wallets: { ...backofficeRoutes.wallets, query: WalletSearchQuery, response: Type.Object({ wallets: Type.Array(ref(Wallet)) }) },
  removeWalletMethod: { ...backofficeRoutes.removeWalletMethod, response: Type.Object({ fund_token: Type.String() }) },
  // The reference also reads this GET's customer from a JSON body; the screens send the query (boCall sends no GET body).
  autopay: { ...backofficeRoutes.autopay, query: AutopayLookup, body: AutopayLookup, response: AutopayRetrieveResponse },
  previewAutopay: { ...backofficeRoutes.previewAutopay, query: AutopayPreviewQuery, response: AutopayPreview },
  createAutopay: { ...backofficeRoutes.createAutopay, body: AutopayCreate, response: Type.Object({ token: Type.String() }) },
  revokeAutopay: { ...backofficeRoutes.revokeAutopay, body: AutopayRevoke, response: Type.Object({}) },
  invite: { ...backofficeRoutes.invite, body: InvitationBody, response: Type.Object({}) },
  cancelInvite: { ...backofficeRoutes.cancelInvite, body: InvitationBody, response: Type.Object({}) },
  invoiceThread: { ...backofficeRoutes.invoiceThread, response: InvoiceThread },
  owedAgain: { ...backofficeRoutes.owedAgain, query: OwedAgainQuery, response: OwedAgain },
  invoiceDocument: { ...backofficeRoutes.invoiceDocument, query: InvoiceDocumentQuery, response: Type.String({ format: 'binary' }) },
  remind: { ...backofficeRoutes.remind, response: ReminderCounts },
  openDispute: { ...backofficeRoutes.openDispute, body: DisputeOpen, response: Type.Object({ identifier: Type.String(), message: Type.String(), dispute_id: Type.Integer() }) },
  closeDispute: { ...backofficeRoutes.closeDispute, body: DisputeClose, response: IdentifierMessage },
  commentOnInvoice: { ...backofficeRoutes.commentOnInvoice, body: CommentCreate, response: Type.Object({ identifier: Type.String() }) },
  syncStatus: { ...backofficeRoutes.syncStatus, response: SyncStatus },
  syncResolutions: { ...backofficeRoutes.syncResolutions, query: ResolutionQuery, response: SyncResolutions },
  handleSyncException: { ...backofficeRoutes.handleSyncException, body: SyncExceptionHandle, response: SyncException },
  pauseSync: { ...backofficeRoutes.pauseSync, response: SyncStatus },
  resumeSync: { ...backofficeRoutes.resumeSync, response: SyncStatus },
  syncUpstream: { ...backofficeRoutes.syncUpstream, response: Type.Object({ upstream: Type.Union([ref(UpstreamView), Type.Null()]) }) },
  setSyncUpstream: { ...backofficeRoutes.setSyncUpstream, body: UpstreamSet, response: ref(UpstreamView) },
  removeSyncUpstream: { ...backofficeRoutes.removeSyncUpstream, response: Type.Object({ upstream: Type.Null() }) },
  syncLanes: { ...backofficeRoutes.syncLanes, response: PairedLaneList },
  createPairingCode: { ...backofficeRoutes.createPairingCode, body: PairingCodeCreate, response: ref(PairingCode) },
  revokeSyncLane: { ...backofficeRoutes.revokeSyncLane, response: ref(PairedLane) },
  readGiftCard: { ...backofficeRoutes.readGiftCard, body: GiftCardRead, response: GiftCardReadResponse },
  loadGiftCard: { ...backofficeRoutes.loadGiftCard, body: GiftCardLoad, response: GiftCardLoadResponse },
} as const satisfies Record<string, Endpoint>;

export type BackofficeEndpoints = typeof backofficeEndpoints;
