import type { EngineError } from '../engine/errors';

/**
 * The reference's ApplicationErrorResponse for an invalid merchant application: an address's
 * errors under the address's name (`Business Physical Address`, `Owner 2`...), a tax id's under its
 * holder's (`Business`, `Owner 1`...), every other field's under its own path. Each invalid field
 * appears once, in the one list it belongs to; all three lists are always present.
 */
export interface ApplicationErrorLists {
  address_errors: Array<{ field: string; error_message: string }>;
  tax_id_errors: Array<{ field: string; error_message: string }>;
  field_errors: Array<{ field: string; error_message: string }>;
}

const ADDRESSES: Record<string, string> = {
  business_physical_address: 'Business Physical Address',
  business_billing_address: 'Business Billing Address',
};

/** `business_owners.1.home_address.city` -> `Owner 2` (the reference counts owners from 1). */
function ownerPart(parts: string[], part: string): string | undefined {
  if (parts[0] !== 'business_owners' || parts[2] !== part) return undefined;
  const index = Number(parts[1]);
  return Number.isInteger(index) ? `Owner ${index + 1}` : undefined;
}

function listOf(field: string): { list: keyof ApplicationErrorLists; name: string } {
  const parts = field.split('.');
  const address = ADDRESSES[parts[0]!] ?? ownerPart(parts, 'home_address');
  if (address) return { list: 'address_errors', name: address };
  const taxId = parts[0] === 'business_tax_id_number' ? 'Business' : ownerPart(parts, 'individual_tax_id_number');
  if (taxId) return { list: 'tax_id_errors', name: taxId };
  return { list: 'field_errors', name: field };
}

export function applicationErrors(e: EngineError): ApplicationErrorLists {
  const out: ApplicationErrorLists = { address_errors: [], tax_id_errors: [], field_errors: [] };
  // A request refused before its fields are read (not JSON, too deep) is the body's error.
  const details = e.details?.length ? e.details : [{ field: 'body', message: e.message }];
  for (const d of details) {
    const { list, name } = listOf(d.field ?? 'body');
    out[list].push({ field: name, error_message: d.message });
  }
  return out;
}
