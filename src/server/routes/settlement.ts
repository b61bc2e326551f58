import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route';
import { fail } from '../../engine/errors';
import { renderStatementPdf } from '../../engine/settlement-reporting/pdf';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { exportParams, exportShape } from '../exports';
import { BatchesAnswer, BatchesQuery, ExceptionsAnswer, ExceptionsQuery, MonthlyStatementDocument, StatementParams, StatementsAnswer, StatementsQuery } from '../../shared/schemas/settlement';

const TAGS = ['Settlement Reporting'];
const forbidden = { 403: { description: 'The account is not enabled for settlement reporting', schema: ref(ErrorBody) } };
const badQuery = { 400: { description: 'Malformed query', schema: ref(ErrorBody) } };

export const listBatches = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/settlement/batches',
  operationId: 'listSettlementBatches',
  tags: TAGS,
  summary: 'Retrieve daily batch deposits',
  description:
    'One batch per processing day, settlement token and currency, closed at the cut-off (or early by a register Z): sales and captures, refunds and credits, the sandbox fees ' +
    '(interchange 1.50% of sales and 10 cents a card sale, 25 cents an ACH/EFT debit; taken from the deposit), the deposit (next business day) and the transactions in it. ' +
    'By watermark, `limit`, `list` as every export. A batch that changes after it closed (a return or chargeback added to its `exceptions`, a payment linked to one of its transactions) gets a new watermark ' +
    '(event `settlement_batch.updated`): polling from the last watermark seen answers it again, as it now is.',
  query: BatchesQuery,
  responses: { 200: { description: 'Batches', schema: BatchesAnswer }, ...badQuery, ...forbidden },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { batches: exportShape(await engine.settlementReporting.batches(p.after, p.limit, query.include_transactions !== false), p.list) } };
  },
});

export const listExceptions = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/settlement/exceptions',
  operationId: 'listSettlementExceptions',
  tags: TAGS,
  summary: 'Retrieve daily transaction exceptions',
  description:
    'ACH/EFT returns (the sandbox return account 0000000024: R01 three processing days later) and card chargebacks (the sandbox charges back an approved card sale or capture whose amount ' +
    'ends in .66, for what is left after refunds, ten processing days after its processing day, reason 10.4), with the original transaction and its order. ' +
    '`exceptions` is an array, as the reference answers it (its only documented query is `watermark`); `list=false` keys them by watermark as other exports do.',
  query: ExceptionsQuery,
  responses: { 200: { description: 'Exceptions', schema: ExceptionsAnswer }, ...badQuery, ...forbidden },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { exceptions: exportShape(await engine.settlementReporting.exceptions(p.after, p.limit), p.list) } };
  },
});

export const listStatements = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/settlement/statements',
  operationId: 'listMonthlyStatements',
  tags: TAGS,
  summary: 'Retrieve monthly statements',
  description:
    "One statement per month and currency, made when the month's last cut-off passes on the account's clock (in the sandbox, move it: POST /api/sandbox/v1/clock/advance). " +
    '`mid` matches the MID or any settlement token of the account; `enddate_from`/`enddate_to` bound the period end date (yyyy-mm-dd, inclusive). `sample=true` answers the sample statement (identifier `sample`).',
  query: StatementsQuery,
  responses: { 200: { description: 'Statements', schema: StatementsAnswer }, ...badQuery, ...forbidden },
  async handler({ engine, query }) {
    const p = exportParams(query);
    if (query.sample) {
      const s = (await engine.settlementReporting.statement('sample'))!;
      const item = { identifier: s.identifier, start_date: s.start_date, end_date: s.end_date, statement_date: s.statement_date, merchant_account_token: s.merchant_account_token, merchant_account_identifier: s.merchant_account_identifier, currency: s.currency, net_cents: s.totals.net_cents, watermark: 0 };
      return { body: { statements: exportShape([item], p.list) } };
    }
    const rows = await engine.settlementReporting.statements({ after: p.after, limit: p.limit, mid: query.mid, enddate_from: query.enddate_from, enddate_to: query.enddate_to });
    return { body: { statements: exportShape(rows, p.list) } };
  },
});

export const getStatement = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/settlement/statements/:statement_identifier.:format',
  operationId: 'getMonthlyStatement',
  tags: TAGS,
  summary: 'Download a monthly statement (PDF or JSON)',
  description: 'The same figures in both formats; money in minor units in JSON. The identifier may carry the extension (`ST202603USD.pdf`). `sample.pdf` / `sample.json`: the sample statement.',
  params: StatementParams,
  responses: {
    200: { description: 'The statement: application/pdf, or JSON', schema: ref(MonthlyStatementDocument), alsoContent: { 'application/pdf': Type.String({ format: 'binary' }) } },
    400: { description: 'Unknown format (only pdf and json)', schema: ref(ErrorBody) },
    404: { description: 'No such statement', schema: ref(ErrorBody) },
    ...forbidden,
  },
  async handler({ engine, params }) {
    const format = params.format.toLowerCase();
    if (format !== 'pdf' && format !== 'json') throw fail.invalid('unknown_format', `format must be pdf or json (got ${params.format})`);
    const identifier = params.statement_identifier.replace(/\.(pdf|json)$/i, '');
    const statement = await engine.settlementReporting.statement(identifier);
    if (!statement) throw fail.notFound('statement_not_found', `No statement ${identifier}`);
    if (format === 'json') return { body: statement };
    const pdf = await renderStatementPdf(statement, engine.logger);
    return { body: pdf, contentType: 'application/pdf', headers: { 'Content-Disposition': `attachment; filename="${statement.identifier}.pdf"` } };
  },
});

export const settlementRoutes: AnyRoute[] = [listBatches, listExceptions, listStatements, getStatement];
