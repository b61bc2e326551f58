import type { EngineCore } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import { recordsSince, getRecord, type RecordDoc } from '../records';
import type { Gateway, SettlementException } from '../gateway';
import { EXCEPTION } from '../gateway/settlement';
import { chargedBack } from '../gateway/sandbox/test-data';
import { ProcessingCalendar } from '../gateway/processing-day';
import { settlementTokens } from '../gateway/settlement-tokens';
import { batchTransactionView, batchView, exceptionView, type BatchView, type ExceptionView } from './views';
import { merchantId } from '../account/merchant-id';
import { settlementBankAccount } from '../account/whoami';
import { closeMonths, STATEMENT, type Statement } from './statements';
import { sampleStatement } from './sample';

export type { Statement } from './statements';
export type { BatchView, ExceptionView } from './views';

export interface StatementSummary {
  identifier: string;
  start_date: string;
  end_date: string;
  statement_date: string;
  merchant_account_token: string;
  merchant_account_identifier: string;
  currency: string;
  net_cents: number;
  watermark: number;
}

export interface StatementFilter {
  after: number;
  limit: number;
  mid?: string | undefined;
  enddate_from?: string | undefined;
  enddate_to?: string | undefined;
}

/**
 * Settlement reporting (the reference's Settlement Reporting tag): daily batch deposits, daily
 * exceptions (ACH returns, card chargebacks), and monthly statements made when a month closes.
 * Reads what the gateway's settlement records; writes only statements.
 */
export interface SettlementReporting {
  batches(after: number, limit: number, withTransactions?: boolean): Promise<Array<BatchView & { exceptions?: ExceptionView[] }>>;
  exceptions(after: number, limit: number): Promise<ExceptionView[]>;
  statements(filter: StatementFilter): Promise<StatementSummary[]>;
  /** A statement by identifier; `sample` is a made-up month for trying the formats. */
  statement(identifier: string): Promise<Statement | undefined>;
  /** Makes the statements of the months closed by `now` (also the `settlement.statements` tick task). */
  closeMonths(now: number): Promise<number>;
}

export function createSettlementReporting(deps: { core: EngineCore; account: Account; gateway: Gateway }): SettlementReporting {
  const { core, account, gateway } = deps;
  const calendar = new ProcessingCalendar();
  const guard = () => {
    if (!account.can('settlement_reporting')) throw fail.forbidden('capability_disabled', 'This account is not enabled for settlement reporting');
  };
  core.onTick('settlement.statements', async (now) => {
    await closeMonths(core, account, calendar, now);
  });

  const summary = (rec: RecordDoc<Statement>): StatementSummary => {
    const s = rec.data;
    return { identifier: s.identifier, start_date: s.start_date, end_date: s.end_date, statement_date: s.statement_date, merchant_account_token: s.merchant_account_token, merchant_account_identifier: s.merchant_account_identifier, currency: s.currency, net_cents: s.totals.net_cents, watermark: rec.watermark };
  };

  return {
    async batches(after, limit, withTransactions = true) {
      guard();
      const profile = account.profile();
      const mid = merchantId(profile);
      const depositAccount = settlementBankAccount(profile);
      const out: Array<BatchView & { exceptions?: ExceptionView[] }> = [];
      for (const rec of await gateway.settlement.batchesSince(after, limit)) {
        const txs = withTransactions ? await gateway.settlement.batchTransactions(rec.data.token) : undefined;
        const view = batchView(rec, mid, txs?.map((t) => batchTransactionView(t, profile.timezone)), depositAccount);
        // The batch's returns and chargebacks: only a returned bank sale or a .66 card sale can have one.
        const exceptions: ExceptionView[] = [];
        for (const t of txs ?? []) {
          if (t.state !== 'completed_but_nsfed' && !chargedBack(t.amount_cents)) continue;
          const e = await getRecord<SettlementException>(core, EXCEPTION, t.token);
          if (e) exceptions.push(exceptionView(e));
        }
        out.push(txs ? { ...view, exceptions } : view);
      }
      return out;
    },
    async exceptions(after, limit) {
      guard();
      return (await gateway.settlement.exceptionsSince(after, limit)).map(exceptionView);
    },
    async statements(filter) {
      guard();
      const profile = account.profile();
      if (filter.mid !== undefined && filter.mid !== merchantId(profile) && !settlementTokens(profile).all.includes(filter.mid)) return [];
      const out: StatementSummary[] = [];
      let after = filter.after;
      // Filters apply after the watermark: read on until the page is full or nothing is left.
      for (;;) {
        const page = await recordsSince<Statement>(core, STATEMENT, after, filter.limit);
        for (const rec of page) {
          const end = rec.data.end_date;
          if (filter.enddate_from && end < filter.enddate_from) continue;
          if (filter.enddate_to && end > filter.enddate_to) continue;
          out.push(summary(rec));
          if (out.length === filter.limit) return out;
        }
        if (page.length < filter.limit) return out;
        after = page[page.length - 1]!.watermark;
      }
    },
    async statement(identifier) {
      guard();
      if (identifier === 'sample') return sampleStatement(account.profile());
      return (await getRecord<Statement>(core, STATEMENT, identifier))?.data;
    },
    closeMonths: (now) => closeMonths(core, account, calendar, now),
  };
}
