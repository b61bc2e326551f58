import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import qs from 'qs';
import type { Engine } from '../engine';
import { fail, isEngineError, notFound } from '../engine/errors';
import { maskCardNumbersInFreeText, maskRequestBody, redactPans } from '../engine/security/card-data';
import { authorize } from '../engine/account';
import { authenticate } from './auth';
import { grantsOf, scopeOf } from './role-grants';
import { SHAPES_FOR_MALFORMED_REQUESTS, toErrorReply, type ErrorShape } from './errors';
import { GATEWAY_ERROR_HEADER } from '../shared/error-header';
import { anonymousLimitFor, DEFAULT_RATE_LIMIT, RateLimits } from './rate-limit';
import { checkCrossSite, hostChecker } from './request-guard';
import { checkBodyType, checkDepth, checkText, dropPrototypeKeys, httpError, JSON_TYPES, MAX_BODY_DEPTH, MAX_OBJECT_KEYS } from './request-body';
import type { AnyRoute, Reply } from './route';
import { staticDispatch, type RouteHandler } from './static-dispatch';
import { lazyCompile, validationError, type AmountWriter } from './validation';
import { requestLocale } from './locale';
import { formatMoney } from '../shared/money';
import { allRoutes } from './routes';
import { mountEcommerceAssets } from './ecommerce-assets';
import { mountPayPage } from './pay-page';
import { EventStreams, type EventStreamLimits } from './event-streams';

export interface AppOptions {
  engine: Engine;
  /** Requests per minute per credential. */
  rateLimit?: number;
  /** Requests per minute per client IP without valid credentials (default a tenth of rateLimit). */
  anonymousRateLimit?: number;
  /** Host names besides localhost and IP literals that this server answers to (DNS rebinding). */
  hostNames?: readonly string[];
  /** Base URL for links in answers (pay_url): configured, never taken from a request's Host. */
  publicUrl?: string | (() => string);
  /** The built renderer (served at /app), when present. */
  uiDir?: string;
  routes?: readonly AnyRoute[];
  /** Event streams per credential and how far back they replay (GET /api/events). */
  eventStreams?: EventStreamLimits;
}

/**
 * A body of one record or one request: the longest text a schema allows is 65,536 characters (a
 * comment, an invoice's notes), well under it. Routes that take files or many records at once
 * name their own (invoice imports and attachments, onboarding documents, orders, a lane's sync
 * push); the register's take 64 KB. Reading is the first cost of a body: 5 MB of JSON (an array
 * of 2.5 million zeros) took a second of the event loop to parse and walk before anything could
 * refuse it.
 */
const DEFAULT_BODY_LIMIT = '1mb';
/**
 * A route anyone may call (sign-in, pairing, the ecommerce API that checks credentials in its body)
 * takes small bodies, with few fields per object: reading 5 MB of JSON holding 400,000 fields took
 * 0.6 s before any check could refuse it, and each anonymous IP may send 150 a minute.
 */
const ANONYMOUS_BODY_LIMIT = '64kb';
const ANONYMOUS_OBJECT_KEYS = 1_000;

/** Amounts in a refused request's message: the account's currency, as the asking screen writes it (Accept-Language). */
function amountWriter(engine: Engine, req: Request): AmountWriter {
  return (minor) => {
    const locale = requestLocale(req);
    return formatMoney(minor, engine.account.profile().currency, locale ? { locale } : {});
  };
}

function runMiddleware(mw: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    mw(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}

function send(res: Response, reply: Reply): void {
  res.status(reply.status ?? 200);
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if (reply.contentType) {
    res.type(reply.contentType).send(reply.body as string | Buffer);
  } else if (reply.body === undefined) {
    res.end();
  } else {
    res.json(reply.body);
  }
}

function sendError(res: Response, err: unknown, engine: Engine, req: Request, shape?: ErrorShape): void {
  if (!isEngineError(err)) {
    engine.logger.error({ err, method: req.method, path: redactPans(req.path) }, 'unhandled error in route');
  }
  const { status, body, words } = toErrorReply(err, shape);
  // Messages name what was asked for (`No customer with identifier ...`): a card number sent as a
  // path or a field value must not come back in clear.
  maskCardNumbersInFreeText(body);
  // No WWW-Authenticate on 401: a Basic challenge makes a browser prompt for the key and then
  // replay it on every request to this origin, including ones a hostile page starts.
  if (res.headersSent) {
    res.end();
    return;
  }
  if (words) res.setHeader(GATEWAY_ERROR_HEADER, encodeURIComponent(JSON.stringify(maskCardNumbersInFreeText(words))));
  res.status(status).json(body);
}


/**
 * A request's path as the log keeps it: card numbers masked, and a pay link's key left out (the
 * key alone opens the invoice and pays it, so a log line must not hand it to whoever reads logs).
 */
export function loggedPath(path: string): string {
  return redactPans(path).replace(/(\/pay\/)[^/]+/g, '$1[key]');
}

/** A JSON value with every object's null-valued fields left out, at any depth (see RouteDef.nullMeansAbsent). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && key !== '__proto__') out[key] = withoutNulls(v);
  return out;
}

interface MountContext {
  engine: Engine;
  limits: RateLimits;
  publicUrl: () => string;
}

function mount(app: Express, route: AnyRoute, ctx: MountContext): RouteHandler {
  const { engine, limits } = ctx;
  const validator = {
    params: route.params ? lazyCompile(route.params, 'params') : undefined,
    query: route.query ? lazyCompile(route.query, 'query') : undefined,
    body: route.body ? lazyCompile(route.body, 'body') : undefined,
  };
  const invalidKind = route.invalidKind ?? 'invalid';
  const limit = route.bodyLimit ?? (route.auth === false ? ANONYMOUS_BODY_LIMIT : DEFAULT_BODY_LIMIT);
  const bodyTypes = route.bodyTypes ?? ['json'];
  if (bodyTypes.includes('multipart') && route.body) throw new Error(`${route.operationId}: multipart bodies need a parser in src/server/request-body.ts first`);
  const jsonParser = express.json({ limit, type: JSON_TYPES });
  const scope = scopeOf(route);
  const grants = grantsOf(route);

  const handler: RouteHandler = async (req, res) => {
    // Set once the request is valid: only the handler's own failures take the route's error shape,
    // except for the shapes malformed requests take too (SHAPES_FOR_MALFORMED_REQUESTS, errors.ts):
    // the ecommerce API answers every failure in its own shape, onboarding every 400 (its
    // ApplicationErrorResponse names the invalid fields, however found), a gateway operation every
    // malformed request as an operation error (500), a wallet operation a schema failure as its 412.
    let shape: ErrorShape | undefined = route.errorShape && SHAPES_FOR_MALFORMED_REQUESTS.has(route.errorShape) ? route.errorShape : undefined;
    try {
      let principal = null;
      if (route.auth === false) {
        // A client of the reference sends its credentials with every call, open ones included: then
        // they spend that credential's budget, not the tenth of it an IP without credentials gets.
        // Guesses at a secret (a password, a link, a pay key) are budgeted per address, credentials or not.
        const known = req.headers.authorization && !route.guessable ? await authenticate(engine, req).catch(() => null) : null;
        if (known) limits.credential(known.credential, res);
        else limits.unauthenticated(req.ip, res);
      } else {
        try {
          principal = await authenticate(engine, req);
        } catch (err) {
          // Bad credentials spend the caller's IP budget, never a credential's.
          limits.unauthenticated(req.ip, res);
          throw err;
        }
        limits.credential(principal.credential, res);
        authorize(principal, scope, grants);
        if (principal.account && !route.anyAccount) {
          throw fail.forbidden('account_not_hosted', 'This merchant account\'s credentials reach GET /api/whoami only: its data is not hosted on this install yet');
        }
      }
      let raw: unknown;
      if (route.body) {
        checkBodyType(req, bodyTypes);
        try {
          await runMiddleware(jsonParser, req, res);
        } catch (err) {
          throw httpError(err);
        }
        raw = req.body ?? {};
        checkDepth(raw, MAX_BODY_DEPTH, invalidKind, route.auth === false ? ANONYMOUS_OBJECT_KEYS : MAX_OBJECT_KEYS);
        checkText(raw, invalidKind);
        dropPrototypeKeys(raw);
      } else if (route.multipartBody) checkBodyType(req, ['multipart']);
      const validate = { params: validator.params?.(), query: validator.query?.(), body: validator.body?.() };
      const params: Record<string, unknown> = { ...req.params };
      if (validate.params && !validate.params(params)) throw validationError(validate.params.errors, 'path', invalidKind);
      const query = structuredClone(req.query) as Record<string, unknown>;
      if (validate.query && !validate.query(query)) throw validationError(validate.query.errors, 'query', invalidKind);
      // Validated first: a body is read for card numbers only once its sizes are known to be the
      // operation's (masking is the costliest step; a 5 MB string of digits and spaces took seconds
      // of the event loop, to be refused as too long). Card numbers typed into free text are then
      // masked before the engine sees (and stores) them, and a body masking changed is validated
      // again: a masked card number in an identifier, or one sent as a JSON number in a number
      // field, is refused as before.
      const body: unknown = route.nullMeansAbsent ? withoutNulls(raw ?? {}) : (raw ?? {});
      if (validate.body && !validate.body(body)) throw validationError(validate.body.errors, 'body', invalidKind, amountWriter(engine, req));
      if (maskRequestBody(body) && validate.body && !validate.body(body)) throw validationError(validate.body.errors, 'body', invalidKind, amountWriter(engine, req));
      shape = route.errorShape;
      const reply = await route.handler({ engine, principal, publicUrl: ctx.publicUrl(), params, query, body, req, res });
      if (!route.streams) send(res, reply);
    } catch (err) {
      sendError(res, err, engine, req, shape);
    }
  };
  app[route.method](route.path, handler);
  return handler;
}

function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Laneway API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;
}

const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

export function createApp(options: AppOptions): Express {
  const { engine } = options;
  const app = express();
  app.locals.eventStreams = new EventStreams(options.eventStreams);
  app.disable('x-powered-by');
  // API answers are not cached (Cache-Control: no-store); hashing multi-megabyte export pages for an ETag is pure cost.
  app.set('etag', false);
  app.set('trust proxy', false);
  // `options[jwt_expiry]=5` and `options[extended_attributes][k]=v`: nested query keys, bounded.
  app.set('query parser', (s: string) => qs.parse(s, { depth: 4, arrayLimit: 200, parameterLimit: 500 }));

  app.use((req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cache-Control', 'no-store');
    // Request lines are debug-level: skip the timing and masking work entirely when they are off.
    if (engine.logger.isLevelEnabled('debug')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        engine.logger.debug(
          { method: req.method, path: loggedPath(req.path), status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 },
          'request',
        );
      });
    }
    next();
  });

  const configured = options.publicUrl;
  const publicUrl = () => (typeof configured === 'function' ? configured() : (configured ?? '')).replace(/\/+$/, '');
  engine.webhooks.setPublicUrl(publicUrl);
  engine.notifications.setPublicUrl(publicUrl);
  const checkHost = hostChecker(options.hostNames ?? []);
  app.use((req, res, next) => {
    try {
      checkHost(req);
      checkCrossSite(req, publicUrl());
      next();
    } catch (err) {
      sendError(res, err, engine, req);
    }
  });

  const perCredential = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const limits = new RateLimits(perCredential, options.anonymousRateLimit ?? anonymousLimitFor(perCredential));

  let fast = new Map<string, RouteHandler>();
  app.use((req, res, next) => {
    const handler = fast.get(`${req.method} ${req.path}`);
    if (!handler) return next();
    req.params = {};
    void handler(req, res);
  });
  const mounted = (options.routes ?? allRoutes).map((route) => ({ route, handler: mount(app, route, { engine, limits, publicUrl }) }));
  fast = staticDispatch(app, mounted);

  app.get('/api/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
    res.type('html').send(docsPage());
  });
  app.get('/api/docs/init.js', (_req, res) => res.type('js').send(DOCS_INIT));
  // swagger-ui's assets folder, found without loading the package (its index loads a 1.5 MB bundle).
  app.use('/api/docs/assets', express.static(dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')), { index: false }));

  // client.js and the payment frame are built beside the screens (out/ecommerce beside out/renderer).
  mountEcommerceAssets(app, engine, options.uiDir ? join(dirname(options.uiDir), 'ecommerce') : undefined);
  mountPayPage(app, engine);

  if (options.uiDir && existsSync(join(options.uiDir, 'index.html'))) {
    const uiDir = options.uiDir;
    // frame-src blob:: a statement's PDF is fetched with the session's header and shown from an object URL the page made.
    const csp = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; object-src 'none'; frame-src 'self' blob:; frame-ancestors 'none'";
    app.use('/app', (_req, res, next) => {
      res.setHeader('Content-Security-Policy', csp);
      next();
    });
    app.use('/app', express.static(uiDir, { index: 'index.html' }));
    // Client-side routes: any other /app path gets the shell.
    app.get(/^\/app(\/.*)?$/, (_req, res) => res.sendFile(join(uiDir, 'index.html')));
  } else {
    app.get(/^\/app(\/.*)?$/, (_req, res) => {
      res.status(503).type('text').send('The screens are not built yet: run `npm run build`, then reload.');
    });
  }
  app.get('/', (_req, res) => res.redirect('/app/'));

  app.use((req, res) => {
    try {
      limits.unauthenticated(req.ip, res);
      throw notFound('route_not_found', `No operation at ${req.method} ${redactPans(req.path)}`);
    } catch (err) {
      sendError(res, err, engine, req);
    }
  });
  // Errors raised by middleware outside a route: a path whose percent-encoding is not UTF-8
  // (the router's and the static files' decoding), for instance. They are the client's.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendError(res, httpError(err), engine, req);
  });
  return app;
}
