/** The API version this install implements (the reference API's numbering). */
export const API_VERSION = '1.3.35';

/** The document's introduction: the rules a client needs that no single operation shows. */
export const apiDescription = `
The embedded HTTP API of Laneway, a point-of-sale and back-office app. It serves the paths and
shapes of the public receivables, payments and order-transaction API (reference version 1.3.35), so
existing clients work unchanged, plus a few Laneway operations (tag *Laneway* and *Account settings*).

## Authentication
Every operation except this document, the docs page and public reference data needs credentials:
- **HTTP Basic**: the API token as user name, the API key as password.
- **Bearer JWT**: the \`jwt\` returned by \`GET /api/whoami\` (valid \`options[jwt_expiry]\` days, 1..365,
  default 30). Disabling a credential stops its JWTs at once. A JWT always expires.

Without valid credentials an operation answers **401** \`{"error": "..."}\` (no \`WWW-Authenticate\`
challenge, so a browser never prompts for the key).

**Scopes.** The API key holds every scope. A JWT holds \`api\` (every business operation) unless
\`options[jwt_scope]\` asked for more: managing credentials (\`/api/account/credentials\`) needs the
\`credentials\` scope, so the key or a JWT minted with \`options[jwt_scope]=api credentials\`. A JWT
calling \`GET /api/whoami\` gets a JWT that expires no later than itself and holds no scope it lacks.
Making something that outlives a JWT (an API key, a lane's pairing code, a user's sign-in link, a
wider role) needs the API key or an owner's own session: a JWT minted by \`GET /api/whoami\` is
**403** \`minted_jwt_cannot_create_credentials\`, and no caller makes a credential holding a scope it lacks.
Settings that outlive a JWT need the \`settings\` scope (the key, an owner's or a manager's session, or
a JWT minted with \`options[jwt_scope]=api settings\`): the account, cashiers and their codes, lanes, the
register's settings and catalog, the sites that may frame the payment frame, the sandbox clock.
Otherwise: **403** \`insufficient_scope\`.

**Browsers.** Bodies are JSON (\`Content-Type: application/json\`; anything else is **415**).
Requests a browser marks as coming from another site (\`Sec-Fetch-Site\`, else \`Origin\`) are
**403** \`cross_site_request\`; programs send neither header and are not affected. A \`Host\` that is
not localhost, an IP address or a configured name is **403** \`host_not_allowed\` (DNS rebinding).

## Errors
Every error body carries \`error\` (for people) and \`code\` (stable, for programs), and \`details\`
per field when validation failed. Statuses: 400 invalid input, 401 credentials, 403 not allowed,
404 not found, 409 already exists, 412 a precondition failed (the reference's status for import
operations, including invalid import input), 413 body or file too large, 415 a body that is not
JSON or an unsupported Content-Encoding, 429 rate limited,
500 gateway operation error, 503 a device or processor is unreachable.
Gateway operations keep the reference shape: \`{"success": false, "errors": ["order_not_found"], "response_code": 250}\`
with status 500 (\`response_code\` 999 for every other operation error); a *decline* is not an error: status 200
with \`success: false\`. Request bodies are taken the reference's way: a JSON number where a string is expected, a
digit string where a number is, \`"true"\`/\`"false"\` where a boolean is, and \`null\` for an optional field as not
sent (docs/compatibility.md).

## Limits
- **Rate**: 1500 requests per minute per credential by default (the operator may change it with
  \`--rate-limit\`); a Basic key and its JWTs share one budget. Requests without valid credentials
  (open operations, bad credentials, unknown paths) spend a separate budget per client IP, a tenth
  of that (150), so they never use up a credential's. Past a budget: **429**,
  \`{"error": "you are being rate limited", "code": 1015}\` and a \`Retry-After\` header in seconds.
- **Free-form attributes** (extra keys on customers, invoices, line items, orders): each nests at
  most 16 levels, all of a record's at most 64K characters as JSON; beyond, **412**. A body nests
  at most 64 levels.
- **Bodies**: JSON up to 1 MB (the register's operations 64 KB, orders 5 MB; over it, **413**);
  invoice attachments and CSV files up to 25 MB decoded.

## Polling exports
Exports take \`watermark\` (int64, default 0), \`limit\` (1..2500, default 100) and \`list\`. They return
records changed after the watermark, oldest first: an object keyed by watermark, or with
\`list=true\` an array whose records carry \`watermark\`. Pass the greatest watermark you saw on the
next call. Watermarks are strictly increasing across restarts; every create or update gets a new one.

## Live events
\`GET /api/events\` streams one Server-Sent Event per change (\`id\` = watermark). Reconnect with
\`Last-Event-ID\` to resume without gaps: up to 10,000 missed events are replayed; further back, the
first event is \`stream.resync\` (read the state again; the events after it follow). One credential
or user holds at most 8 streams open: a new one closes the oldest (\`stream.closed\` first).

## Environments
A new install runs in the **sandbox**: the sandbox processor approves and declines by test card
numbers and amounts as documented on the gateway operations; no money moves.
`.trim();
