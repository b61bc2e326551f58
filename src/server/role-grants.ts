import type { Scope } from '../engine/account';
import type { AnyRoute } from './route';

/**
 * Which back-office grants admit each operation that needs the `api` scope (see
 * engine/account/roles.ts for which role holds which grant). The API key and the owner hold `api`
 * and pass everywhere; a manager, clerk or cashier passes only where a grant of theirs is named.
 * Rules are tried in order; the first whose method and path match decides. An operation no rule
 * names falls to the last two: reading needs `read`, anything else `manage` (a manager's), so a
 * route added later is never open to a clerk or a cashier by accident.
 */
interface Rule {
  methods: readonly string[] | '*';
  path: RegExp;
  grants: readonly Scope[];
}

const WRITE = ['post', 'put', 'patch', 'delete'];
const RULES: readonly Rule[] = [
  // The register: sales, shifts, tenders, the lane terminal command, the register's own reads.
  { methods: ['get'], path: /^\/api\/(pos|lanes)(\/|$)/, grants: ['read', 'register'] },
  { methods: ['get'], path: /^\/api\/events$/, grants: ['read', 'register'] },
  { methods: ['get'], path: /^\/api\/whoami$/, grants: ['read', 'register'] },
  // Every user reads their own session (a cashier's back office shows only the way to the register).
  { methods: ['get', 'delete'], path: /^\/api\/session$/, grants: ['read', 'register'] },
  // The register's status badge shows the lane's sync with its hub.
  { methods: ['get'], path: /^\/api\/sync\/status$/, grants: ['read', 'register'] },
  // The upstream a hub replicates with holds another service's API token: read and removed with
  // settings (setting one also needs the credentials scope, which only the owner holds).
  { methods: ['get', ...WRITE], path: /^\/api\/sync\/upstream$/, grants: ['settings'] },
  { methods: WRITE, path: /^\/api\/pos\/(shifts|sales|registers\/[^/]+\/z)/, grants: ['register'] },
  { methods: ['post'], path: /^\/api\/gateway\/v1\/terminal$/, grants: ['register'] },
  // Settings: the account, the lanes, the register's catalog, cashiers and settings.
  { methods: WRITE, path: /^\/api\/account(\/|$)/, grants: ['settings'] },
  { methods: WRITE, path: /^\/api\/lanes(\/|$)/, grants: ['settings'] },
  { methods: WRITE, path: /^\/api\/pos\/(settings|products|cashiers)/, grants: ['settings'] },
  // Which sites may frame the payment frame: who may collect cards on the shop's behalf.
  { methods: WRITE, path: /^\/api\/ecommerce\/settings$/, grants: ['settings'] },
  // Collecting: record a payment, send (or cancel) an invitation or a reminder.
  { methods: WRITE, path: /^\/api\/imports\/payment$/, grants: ['collect'] },
  { methods: ['post'], path: /^\/api\/receivables\/payments\/[^/]+\/applications$/, grants: ['collect'] },
  { methods: WRITE, path: /^\/api\/(invitations|reminders)(\/|$)/, grants: ['collect'] },
  { methods: WRITE, path: /^\/api\/receivables\/invoices\/[^/]+\/reminders$/, grants: ['collect'] },
  { methods: ['post'], path: /^\/api\/notifications\/(remind|direct_message)(\/|$)/, grants: ['collect'] },
  // What a clerk types after a phone call: a dispute opened or closed, a comment.
  { methods: ['post'], path: /^\/api\/(invoices|customers)\/[^/]+\/(disputes|comments)(\/|$)/, grants: ['collect'] },
  // Webhook endpoints and their delivery log are read by who holds settings, never a clerk: a URL
  // often carries the receiver's token, and the log shows each URL and the start of each answer.
  { methods: ['get'], path: /^\/api\/(account\/webhooks|developers\/webhook_responses)(\/|$)/, grants: ['settings'] },
  // The sandbox clock and a webhook sent again by hand are settings.
  { methods: WRITE, path: /^\/api\/(sandbox|developers)\//, grants: ['settings'] },
  // Money moves: transactions, refunds, wallets, autopay, gift cards.
  { methods: WRITE, path: /^\/api\/gateway\/v1\//, grants: ['money'] },
  { methods: WRITE, path: /^\/api\/autopay(\/|$)/, grants: ['money'] },
  // A card file's tokenized results hand out a wallet, fund and vault token per card, all at once:
  // what charges those cards, so theirs who move money (a clerk reads wallets one at a time).
  { methods: ['get'], path: /^\/api\/imports\/:id\/echo$/, grants: ['money'] },
  // The wallet exports list every wallet's fund and vault tokens at once, as the echo does.
  { methods: ['get'], path: /^\/api\/exports\/wallets(\/|$)/, grants: ['money'] },
  { methods: ['get', 'head'], path: /./, grants: ['read'] },
  { methods: '*', path: /./, grants: ['manage'] },
];

/**
 * The scope an operation needs of every caller. An operation only the `settings` grant admits needs
 * the `settings` scope from API credentials too, not only from users: a leaked screen JWT (`api`)
 * must not leave something that outlives it (a supervisor cashier with a chosen code, a site allowed
 * to frame the payment frame, a lane, a moved sandbox clock).
 */
export function scopeOf(route: Pick<AnyRoute, 'method' | 'path' | 'scope'>): Scope {
  if (route.scope) return route.scope;
  const grants = grantsOf(route);
  return grants.length === 1 && grants[0] === 'settings' ? 'settings' : 'api';
}

export function grantsOf(route: Pick<AnyRoute, 'method' | 'path'>): readonly Scope[] {
  const rule = RULES.find((r) => (r.methods === '*' || r.methods.includes(route.method)) && r.path.test(route.path));
  return rule?.grants ?? [];
}
