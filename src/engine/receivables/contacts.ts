import type { ContactData } from './types';
import { Fields } from './fields';
import type { Problems } from './problems';

const CONTACT_FIELDS = ['first_name', 'last_name', 'title', 'department', 'telephone'] as const;

export type ContactInput = Pick<ContactData, 'email' | (typeof CONTACT_FIELDS)[number]> & { bulk_activate?: boolean };

export function readContacts(raw: unknown, field: string, problems: Problems): ContactInput[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.add(field, 'invalid_type', 'must be an array of contacts');
    return [];
  }
  const out: ContactInput[] = [];
  raw.forEach((item: unknown, i) => {
    if (!item || typeof item !== 'object') {
      problems.add(`${field}.${i}`, 'invalid_type', 'must be a contact object');
      return;
    }
    const f = new Fields(item as Record<string, unknown>, problems.child(`${field}.${i}.`));
    const email = f.email('email');
    if (!f.has('email')) problems.add(`${field}.${i}.email`, 'missing_email', 'is required');
    const contact: ContactInput = { email: email ?? '' };
    for (const name of CONTACT_FIELDS) {
      const v = f.str(name, { max: 200 });
      if (v !== undefined) contact[name] = v;
    }
    const activate = f.bool('bulk_activate');
    if (activate !== undefined) contact.bulk_activate = activate;
    if (email) out.push(contact);
  });
  return out;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The contact rules of a customer import. Contacts in the payload are added, or updated when
 * already stored unless their person has signed up (a signed-up user owns their profile). With
 * `replace`, stored supplier-created contacts absent from the payload are deleted, or disabled
 * when signed up; contacts a customer user created are theirs and stay.
 */
export function mergeContacts(stored: ContactData[], payload: ContactInput[], replace: boolean, now: string, token: () => string): ContactData[] {
  const out = stored.map((c) => ({ ...c }));
  for (const input of payload) {
    const existing = out.find((c) => same(c.email, input.email));
    if (existing) {
      if (existing.signed_up_at) continue;
      for (const name of CONTACT_FIELDS) if (input[name] !== undefined) existing[name] = input[name];
      if (input.bulk_activate && !existing.activated_at) existing.activated_at = now;
      delete existing.disabled;
      continue;
    }
    const created: ContactData = { email: input.email, created_by: 'supplier', token: token() };
    for (const name of CONTACT_FIELDS) if (input[name] !== undefined) created[name] = input[name];
    if (input.bulk_activate) created.activated_at = now;
    out.push(created);
  }
  if (!replace) return out;
  return out.flatMap((c) => {
    if (c.created_by !== 'supplier' || payload.some((p) => same(p.email, c.email))) return [c];
    return c.signed_up_at ? [{ ...c, disabled: true }] : [];
  });
}

export function findContact(contacts: ContactData[], email: string): ContactData | undefined {
  return contacts.find((c) => same(c.email, email));
}
