import { fail } from '../errors';
import { recordsByRef } from '../records';
import { Fields } from './fields';
import { Problems } from './problems';
import type { ReceivablesUnit } from './unit-of-work';
import type { DivisionData, DivisionImportInput } from './types';
import type { InvoiceRow } from './invoice-codec';

export const DIVISION_CODE_RE = /^[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,38}[A-Za-z0-9])?$/;

/**
 * Division create-or-update. An unknown parent code still creates the division, without a parent
 * (the reference's rule); a parent that would make a loop is refused. Deleting (deleted: true)
 * is refused while an invoice or a child division refers to the division.
 */
export async function importDivision(s: ReceivablesUnit, input: DivisionImportInput): Promise<{ division: DivisionData; created: boolean }> {
  const problems = new Problems();
  const f = new Fields(input, problems);
  const code = f.str('code', { pattern: DIVISION_CODE_RE, patternText: 'must be 1 to 40 letters, digits, spaces or . _ -', code: 'invalid_division_code' });
  if (!f.has('code')) problems.add('code', 'missing_code', 'is required');
  const name = f.str('name', { max: 200 });
  if (!f.has('name')) problems.add('name', 'missing_name', 'is required');
  const externalId = f.str('external_id', { max: 100 });
  const deleted = f.bool('deleted');
  const parentCode = f.str('parent_code', { max: 40 });
  problems.throwIfAny();
  if (!code || !name) throw fail.internal('division_fields', 'division fields missing after validation');

  const existing = await s.division(code);
  let parent: string | null = existing?.parent_code ?? null;
  if (parentCode !== undefined) {
    const found = await s.division(parentCode);
    parent = found ? parentCode : null;
    if (found && (await leadsTo(s, parentCode, code))) {
      throw fail.precondition('hierarchy_cycle', `parent_code ${parentCode} would make division ${code} its own ancestor`, [{ field: 'parent_code', message: 'would make a loop' }]);
    }
  }
  if (deleted === true && existing && !existing.deleted) await assertDeletable(s, code);
  const division: DivisionData = {
    code,
    name,
    parent_code: parent,
    external_id: externalId ?? existing?.external_id ?? null,
    deleted: deleted ?? existing?.deleted ?? false,
    company_name: existing?.company_name ?? null,
    ...(existing?.address ? { address: existing.address } : {}),
  };
  s.putDivision(division);
  return { division, created: !existing };
}

async function leadsTo(s: ReceivablesUnit, from: string, target: string): Promise<boolean> {
  const seen = new Set<string>();
  let at: string | null | undefined = from;
  while (at) {
    if (at === target) return true;
    if (seen.has(at)) return false;
    seen.add(at);
    at = (await s.division(at))?.parent_code;
  }
  return false;
}

async function assertDeletable(s: ReceivablesUnit, code: string): Promise<void> {
  const [invoice] = await s.tx.find<InvoiceRow & { [k: string]: unknown }>('invoices', { selector: { division: code }, sort: [{ division: 'asc' }, { id: 'asc' }], limit: 1 });
  if (invoice) throw fail.precondition('division_in_use', `Division ${code} cannot be deleted: invoice ${invoice.id} refers to it`, [{ field: 'deleted', message: 'division is used by invoices' }]);
  const children = await recordsByRef<DivisionData>(s.tx, 'division', code);
  if (children.length) {
    throw fail.precondition('division_has_children', `Division ${code} cannot be deleted: it is the parent of ${children.map((c) => c.data.code).join(', ')}`, [{ field: 'deleted', message: 'division is a parent' }]);
  }
}

/**
 * The division an invoice names: required when the account requires divisions, created on the fly
 * with dynamic division creation, otherwise it must exist and be active (unless the invoice
 * already had it).
 */
export async function resolveInvoiceDivision(
  s: ReceivablesUnit,
  code: string | undefined,
  name: string | undefined,
  previous: string | undefined,
  problems: Problems,
): Promise<string | undefined> {
  if (code === undefined) {
    if (previous) return previous;
    if (s.account.can('divisions_required')) problems.add('division', 'missing_division', 'is required: this account uses divisions');
    return undefined;
  }
  if (!DIVISION_CODE_RE.test(code)) {
    problems.add('division', 'invalid_division_code', 'must be 1 to 40 letters, digits, spaces or . _ -');
    return undefined;
  }
  const found = await s.division(code);
  if (!found) {
    if (!s.account.can('dynamic_division_creation')) {
      problems.add('division', 'division_not_found', `names no division (${code}); create it with POST /api/imports/division`);
      return undefined;
    }
    s.putDivision({ code, name: name ?? code, parent_code: null, external_id: null, deleted: false, company_name: null });
    return code;
  }
  if (found.deleted && previous !== code) {
    problems.add('division', 'division_inactive', `${code} is inactive (deleted)`);
    return undefined;
  }
  return code;
}
