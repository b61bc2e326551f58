import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import {
  Agreement,
  AgreementRequest,
  ApproveRequest,
  FundSource,
  PageQuery,
  PayportTransaction,
  PayportTransactionRequest,
  RejectRequest,
  TokenParams,
  TransactionLookupParams,
  VaultBankRequest,
} from '../../shared/schemas/payport';

const precondition = (what: string) => ({ 412: { description: what, schema: ref(ErrorBody) } });
const notFound = (what: string) => ({
  400: { description: 'A token over 100 characters', schema: ref(ErrorBody) },
  404: { description: `No such ${what}`, schema: ref(ErrorBody) },
});
const badPage = { 400: { description: 'page is not a whole number from 1', schema: ref(ErrorBody) } };
const illegal = 'Not allowed in the record\'s state (`illegal_transition`, naming the state and the states the action applies to), or a business rule failed';

const TRANSACTION_RULES = `States (the reference's transaction lifecycle): a \`request\` waits in wait_for_request_approval and a \`send\` in new until approved;
cancel applies to new, wait_for_request_approval and wait_for_bank_account_verification only (412 \`illegal_transition\` otherwise).
A \`direct_debit\` (under an approved debit agreement) and a \`direct_credit\` (paid from your fund into the bank account the recipient's wallet holds; 412 \`recipient_has_no_bank_account\` when it holds none) need no approval: their money moves when they are made.
Approving moves the money as one order transaction of the gateway (a sale for request and direct_debit, a credit to the recipient's wallet method for send and direct_credit),
keyed by the transaction so a retried approval never charges twice; from then on the state is that order transaction's:
in_progress (a bank transfer until it settles), completed, completed_but_nsfed (returned by the bank), cancelled (voided), or error (declined).
It settles and shows in exports and settlement like any order transaction (\`gateway_transaction\`). With a later \`process_on\` an approved transaction stays new (and cancellable) until that day, when the money moves. The sandbox's test cards, bank accounts and amounts apply (an amount ending in .01 declines).`;

export const listFunds = defineRoute({
  method: 'get',
  path: '/api/funds',
  operationId: 'listFunds',
  tags: ['Fund Sources'],
  summary: 'Your fund sources: vaulted bank accounts and your balance',
  responses: { 200: { description: 'Fund sources', schema: Type.Array(ref(FundSource)) } },
  async handler({ engine }) {
    return { body: await engine.payport.funds.list() };
  },
});

export const vaultBank = defineRoute({
  method: 'post',
  path: '/api/vault/bank',
  operationId: 'vaultBankAccount',
  tags: ['Fund Sources'],
  summary: 'Vault one of your bank accounts for transactions',
  description: 'The account number is used once: only its last four digits and a keyed fingerprint are kept, in your own wallet. In the sandbox only its test accounts can be vaulted (ACH routing 122105278 or EFT institution 001 transit 00011, account 0000000016). Vaulting the same account again answers its token.',
  body: VaultBankRequest,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Vaulted', schema: ref(FundSource) }, ...precondition('Invalid or unknown bank account (account_unknown_to_sandbox, invalid_routing_number...)') },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.payport.funds.vaultBank(body) };
  },
});

export const createTransaction = defineRoute({
  method: 'post',
  path: '/api/transactions',
  operationId: 'createPayportTransaction',
  tags: ['Transactions'],
  summary: 'Request money from, send money to, or directly debit someone by email',
  description: `${TRANSACTION_RULES}\n\nA direct_debit needs an approved debit agreement with \`email\` (412 \`no_debit_agreement\`) and moves the money at once. The same \`unique_reference\` sent again with the same request answers the first transaction.`,
  body: PayportTransactionRequest,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Created', schema: ref(PayportTransaction) }, ...precondition('Invalid request, or a rule failed (no_debit_agreement, duplicate_unique_reference, fund_not_found...)') },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.payport.transactions.create(body, principal!.credential) };
  },
});

export const listTransactions = defineRoute({
  method: 'get',
  path: '/api/transactions',
  operationId: 'listPayportTransactions',
  tags: ['Transactions'],
  summary: 'Your transactions, newest first, 50 a page',
  query: PageQuery,
  responses: { 200: { description: 'Transactions', schema: Type.Array(ref(PayportTransaction)) }, ...badPage },
  async handler({ engine, query }) {
    return { body: await engine.payport.transactions.list(query.page ?? 1) };
  },
});

export const viewTransaction = defineRoute({
  method: 'get',
  path: '/api/transactions/:token_or_unique_reference',
  operationId: 'viewPayportTransaction',
  tags: ['Transactions'],
  summary: 'A transaction by token, then unique_reference',
  params: TransactionLookupParams,
  responses: { 200: { description: 'The transaction', schema: ref(PayportTransaction) }, ...notFound('transaction') },
  async handler({ engine, params }) {
    return { body: await engine.payport.transactions.view(params.token_or_unique_reference) };
  },
});

export const approveTransaction = defineRoute({
  method: 'post',
  path: '/api/transactions/:token/approve',
  operationId: 'approvePayportTransaction',
  tags: ['Transactions'],
  summary: 'Approve a new or wait_for_request_approval transaction: the money moves',
  description: `${TRANSACTION_RULES}\n\nrequest: \`fund_token\` is the payer's fund (a vaulted card or bank account; default your first bank account). send: the money goes to the first payment method of the recipient's wallet (by contact email; 412 \`recipient_has_no_payment_method\`).`,
  params: TokenParams,
  body: ApproveRequest,
  invalidKind: 'precondition',
  responses: { 200: { description: 'Approved', schema: ref(PayportTransaction) }, ...notFound('transaction'), ...precondition(illegal) },
  async handler({ engine, params, body, principal }) {
    return { body: await engine.payport.transactions.approve(params.token, body.fund_token, principal!.credential) };
  },
});

export const cancelTransaction = defineRoute({
  method: 'post',
  path: '/api/transactions/:token/cancel',
  operationId: 'cancelPayportTransaction',
  tags: ['Transactions'],
  summary: 'Cancel a transaction before its money moves',
  description: TRANSACTION_RULES,
  params: TokenParams,
  responses: { 200: { description: 'Cancelled', schema: ref(PayportTransaction) }, ...notFound('transaction'), ...precondition(illegal) },
  async handler({ engine, params }) {
    return { body: await engine.payport.transactions.cancel(params.token) };
  },
});

const AGREEMENT_RULES = `States: pending --approve--> approved --revoke--> revoked; pending --reject--> rejected; pending or approved --cancel--> cancelled.
Any other move is 412 \`illegal_transition\`. An approved agreement lets direct_debit transactions with its email debit its fund without approval.
In this single-account sandbox the caller approves, rejects and revokes for the customer, as it approves a money request.`;

const agreementAction = (action: 'cancel' | 'reject' | 'revoke', summary: string) =>
  defineRoute({
    method: 'post',
    path: `/api/debit_agreements/:token/${action}`,
    operationId: `${action}Agreement`,
    tags: ['Agreements'],
    summary,
    description: AGREEMENT_RULES,
    params: TokenParams,
    ...(action === 'reject' ? { body: RejectRequest, invalidKind: 'precondition' as const } : {}),
    responses: { 200: { description: 'The agreement', schema: ref(Agreement) }, ...notFound('agreement'), ...precondition(illegal) },
    async handler({ engine, params, body }) {
      const agreements = engine.payport.agreements;
      if (action === 'reject') return { body: await agreements.reject(params.token, (body as { rejection_reason?: string }).rejection_reason) };
      return { body: await agreements[action](params.token) };
    },
  });

export const createAgreement = defineRoute({
  method: 'post',
  path: '/api/debit_agreements',
  operationId: 'createAgreement',
  tags: ['Agreements'],
  summary: 'Ask someone by email for a pre-authorized debit agreement (pending)',
  description: AGREEMENT_RULES,
  body: AgreementRequest,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Created', schema: ref(Agreement) }, ...precondition('Invalid request, or autopay is not enabled for this account') },
  async handler({ engine, body, principal }) {
    return { status: 201, body: await engine.payport.agreements.create(body, principal!.credential) };
  },
});

const agreementList = (which: 'sent' | 'received', summary: string) =>
  defineRoute({
    method: 'get',
    path: `/api/debit_agreements/${which}`,
    operationId: `list${which === 'sent' ? 'Sent' : 'Received'}Agreements`,
    tags: ['Agreements'],
    summary,
    query: PageQuery,
    responses: { 200: { description: 'Agreements, newest first, 50 a page', schema: Type.Array(ref(Agreement)) }, ...badPage },
    async handler({ engine, query }) {
      return { body: await engine.payport.agreements[which](query.page ?? 1) };
    },
  });

export const approveAgreement = defineRoute({
  method: 'post',
  path: '/api/debit_agreements/:token/approve',
  operationId: 'approveAgreement',
  tags: ['Agreements'],
  summary: 'Approve a pending agreement with the fund it may debit',
  description: `${AGREEMENT_RULES}\n\n\`fund_token\`: a vaulted bank account or card (default your first bank account); not the balance.`,
  params: TokenParams,
  body: ApproveRequest,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Approved', schema: ref(Agreement) }, ...notFound('agreement'), ...precondition(illegal) },
  async handler({ engine, params, body }) {
    return { status: 201, body: await engine.payport.agreements.approve(params.token, body.fund_token) };
  },
});

export const payportRoutes: AnyRoute[] = [
  listFunds,
  vaultBank,
  createTransaction,
  listTransactions,
  viewTransaction,
  approveTransaction,
  cancelTransaction,
  createAgreement,
  agreementList('sent', 'Agreements you sent'),
  agreementList('received', 'Agreements sent to you'),
  approveAgreement,
  agreementAction('cancel', 'Cancel an agreement you sent (pending or approved)'),
  agreementAction('reject', 'Reject a pending agreement, with a rejection_reason'),
  agreementAction('revoke', 'Revoke an approved agreement: it can no longer debit'),
];
