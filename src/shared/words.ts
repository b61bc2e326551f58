/**
 * Counted words for people ("1 time", "2 times"), by the language's own plural rules rather than
 * "time(s)". The register's words are English; the rules object is chosen by language so that a
 * translated word list gets its own categories (one, few, many...).
 */
const rules = new Map<string, Intl.PluralRules>();

export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

export function plural(count: number, forms: PluralForms, language = 'en'): string {
  let r = rules.get(language);
  if (!r) {
    r = new Intl.PluralRules(language);
    rules.set(language, r);
  }
  return forms[r.select(count)] ?? forms.other;
}

/** "1 time", "3 times", "0 attempts": the count with its word. */
export function counted(count: number, forms: PluralForms, language = 'en'): string {
  return `${count} ${plural(count, forms, language)}`;
}
