import { time } from '../../format';
import { ReceiptView } from './ReceiptView';
import { RefundPlan, SaleActions, SaleLines, SaleTenders, VoidSale } from './SaleDetail';
import { SaleFinder } from './SaleFinder';
import { SALE_STATUS } from './sale-status';
import { useSaleKeys, useSaleLookup } from './sale-lookup';

/** Find a sale by its receipt number (or from the lane's recent ones): reprint, void, refund. */
export function Sales() {
  const lookup = useSaleLookup();
  useSaleKeys(lookup);
  const { currency, query, setQuery, recent, sale, mode, setMode, qty, setQty, plan, setPlan, result, receipt, list, find, open, back, reprint, preview, confirmRefund, confirmVoid, settle, all, incomplete, approvalField } = lookup;

  if (!sale) return <SaleFinder query={query} setQuery={setQuery} recent={recent} currency={currency} open={(id) => void open(id)} find={find} list={list} />;

  return (
    <div className="sales detail">
      <section className="card">
        <div className="row-between">
          <h2 className="page-title">
            Sale {sale.number} <span className={`pill ${sale.status}`}>{SALE_STATUS[sale.status]}</span>
          </h2>
          <button type="button" onClick={back}>
            Back <kbd>Esc</kbd>
          </button>
        </div>
        <p className="muted">
          {time(sale.at)} · {sale.cashier.name} · lane {sale.laneid}
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (mode === 'refund') void preview();
          }}
        >
          <SaleLines sale={sale} currency={currency} refunding={mode === 'refund'} qty={qty} setQty={setQty} />
          {mode === 'refund' && (
            <div className="row">
              <button type="button" onClick={all}>
                Everything <kbd>F8</kbd>
              </button>
              <button type="submit" className="primary big">
                Show the refund <kbd>Enter</kbd>
              </button>
              <button type="button" onClick={back}>
                Cancel <kbd>Esc</kbd>
              </button>
            </div>
          )}
        </form>
        <SaleTenders sale={sale} currency={currency} />
        {mode === 'view' && (
          <SaleActions
            sale={sale}
            currency={currency}
            outstanding={incomplete ? result!.outcome.reversal!.outstanding_cents : null}
            reprint={() => void reprint()}
            refund={() => setMode('refund')}
            voidSale={() => setMode('void')}
            settle={(method) => void settle(method)}
          />
        )}
      </section>
      {(result?.receipt ?? receipt) && <ReceiptView receipt={(result?.receipt ?? receipt)!} />}
      {plan && <RefundPlan plan={plan} currency={currency} confirm={() => void confirmRefund()} close={() => setPlan(null)} approval={approvalField} />}
      {mode === 'void' && <VoidSale sale={sale} currency={currency} confirm={() => void confirmVoid()} close={() => setMode('view')} approval={approvalField} />}
    </div>
  );
}
