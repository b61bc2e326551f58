import { useEffect, useRef, useState } from 'react';
import { usePos } from '../../state/pos';
import { useKeys } from '../../keys';
import type { Receipt, ReversalOutcome, Sale } from '../../api/pos';
import { parseWholeNumber } from '../../format';

/** The sales screen's state and what the cashier can do on it: find, reprint, refund, void, settle. */
export function useSaleLookup() {
  const { api, laneid, run, go, register } = usePos();
  const currency = register?.currency ?? 'usd';
  const [query, setQuery] = useState('');
  const [recent, setRecent] = useState<Sale[]>([]);
  const [sale, setSale] = useState<Sale | null>(null);
  const [mode, setMode] = useState<'view' | 'refund' | 'void'>('view');
  const [qty, setQty] = useState<Record<number, string>>({});
  const [plan, setPlan] = useState<ReversalOutcome | null>(null);
  const [result, setResult] = useState<{ outcome: ReversalOutcome; receipt: Receipt | null } | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  /** A supervisor's code, typed in the refund or void dialog when the cashier is not one (cleared once sent). */
  const [approval, setApproval] = useState('');
  const needsApproval = usePos((s) => s.shift?.cashier.supervisor === false);
  const list = useRef<HTMLDivElement>(null);
  const find = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (api && laneid) void api.recentSales(laneid).then((r) => setRecent(r.sales)).catch(() => undefined);
  }, [api, laneid, sale]);

  const open = async (idOrNumber: string) => {
    const found = await run((a) => a.sale(idOrNumber));
    if (!found) return;
    setSale(found);
    setMode('view');
    setPlan(null);
    setResult(null);
    setQty({});
    // A refund's or void's own number opens its sale with that document's receipt.
    setReceipt(await run((a) => a.receipt(idOrNumber)) ?? null);
  };

  const back = () => {
    if (plan) return setPlan(null);
    if (mode !== 'view') return setMode('view');
    if (sale) {
      setSale(null);
      setResult(null);
      setQuery('');
      setTimeout(() => find.current?.focus(), 0);
      return;
    }
    go('sale');
  };

  const reprint = async () => {
    if (!sale) return;
    const copy = await run((a) => a.receipt(sale.id, { copy: true }));
    if (!copy) return;
    setReceipt(copy);
    setTimeout(() => window.print(), 50);
  };

  const refundLines = () => {
    const typed = refundLinesOf(qty);
    if ('bad' in typed) usePos.getState().notify({ kind: 'error', text: `Line ${typed.bad}: type how many come back as a whole number (1, 2, 3…).` });
    return 'bad' in typed ? undefined : typed.lines;
  };

  const preview = async () => {
    if (!sale) return;
    const lines = refundLines();
    if (!lines) return;
    if (lines.length === 0) return usePos.getState().notify({ kind: 'error', text: 'Choose what comes back: type a quantity on a line, or press F8 for everything.' });
    const out = await run((a, shift) => a.refund(sale.id, { shift: shift.id, lines, dry_run: true }));
    if (out) setPlan(out);
  };

  const settled = async (out: ReversalOutcome | undefined) => {
    if (!out) return;
    setPlan(null);
    setMode('view');
    setSale(out.sale);
    setQty({});
    const r = out.reversal ? ((await run((a) => a.receipt(out.sale.id, { reversal: out.reversal!.number }))) ?? null) : null;
    setResult({ outcome: out, receipt: r });
    usePos.getState().notify({ kind: out.reversal?.status === 'incomplete' ? 'error' : 'ok', text: out.message });
  };

  const confirmRefund = async () => {
    const lines = refundLines();
    if (!sale || !plan || !lines) return;
    const code = approval;
    setApproval('');
    await settled(await run((a, shift) => a.refund(sale.id, { shift: shift.id, lines, ...(code ? { approval_code: code } : {}) }), { movesMoney: true }));
  };
  const confirmVoid = async () => {
    if (!sale) return;
    const code = approval;
    setApproval('');
    await settled(await run((a, shift) => a.voidSale(sale.id, shift.id, code || undefined), { movesMoney: true }));
  };
  const settle = async (method: 'retry' | 'cash') => {
    const r = result?.outcome.reversal;
    if (!sale || !r) return;
    await settled(await run((a, shift) => a.settle(sale.id, r.number, shift.id, method), { movesMoney: true }));
  };
  const all = () => {
    if (!sale) return;
    setQty(Object.fromEntries(sale.lines.filter((l) => !l.voided && l.quantity > l.returned_quantity).map((l) => [l.line, String(l.quantity - l.returned_quantity)])));
  };

  const incomplete = result?.outcome.reversal?.status === 'incomplete';
  const approvalField = { needed: needsApproval, code: approval, setCode: setApproval };
  return { currency, query, setQuery, recent, sale, mode, setMode, qty, setQty, plan, setPlan, result, receipt, list, find, open, back, reprint, preview, confirmRefund, confirmVoid, settle, all, incomplete, approvalField };
}

export type SaleLookup = ReturnType<typeof useSaleLookup>;

/** The sales screen's keys, by what is on screen: a refund plan, a void, refund quantities, a sale, or the list. */
export function useSaleKeys(s: SaleLookup) {
  const { plan, mode, sale, incomplete, list, find, back, all, setMode, preview } = s;
  const { confirmRefund, confirmVoid, reprint, settle } = s;
  useKeys(
    plan
      ? { Enter: () => void confirmRefund(), Escape: back }
      : mode === 'void'
        ? { Enter: () => void confirmVoid(), Escape: back }
        : mode === 'refund'
          ? // Enter shows the refund wherever the focus is (after F8 or a click on Everything it is on no field).
            { F8: all, Enter: () => void preview(), Escape: back }
          : sale
            ? {
                Escape: back,
                p: () => void reprint(),
                P: () => void reprint(),
                F7: () => sale.allowed.refund && setMode('refund'),
                F9: () => sale.allowed.void && setMode('void'),
                ...(incomplete ? { F4: () => void settle('cash'), F5: () => void settle('retry') } : {}),
              }
            : {
                Escape: back,
                ArrowDown: () => {
                  const buttons = [...(list.current?.querySelectorAll('button') ?? [])];
                  const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
                  buttons[Math.min(buttons.length - 1, i + 1)]?.focus();
                },
                ArrowUp: () => {
                  const buttons = [...(list.current?.querySelectorAll('button') ?? [])];
                  const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
                  if (i <= 0) find.current?.focus();
                  else buttons[i - 1]?.focus();
                },
              },
  );
}

/** The quantities typed per line, or the first line whose text is no whole number ("1,5" is not 15, nor nothing). */
function refundLinesOf(qty: Record<number, string>): { lines: Array<{ line: number; quantity: number }> } | { bad: number } {
  const lines: Array<{ line: number; quantity: number }> = [];
  for (const [line, text] of Object.entries(qty)) {
    if (text.trim() === '') continue;
    const quantity = parseWholeNumber(text);
    if (quantity === null) return { bad: Number(line) };
    if (quantity > 0) lines.push({ line: Number(line), quantity });
  }
  return { lines };
}
