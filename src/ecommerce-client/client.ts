import { CHANNEL, isEnvelope, type Approval, type FrameMessage, type PageMessage, type PartialPayment, type Rejection } from './protocol';

/**
 * client.js: the global `versapay` a shop's page loads from this product, with the shape of the
 * reference's SDK: `initClient(sessionId, styles?, fontUrls?)` (a client, also usable as a promise),
 * `client.initFrame(container, height, width)`, `client.onApproval(resolve, reject)`,
 * `client.submitEvents()`, `client.onPartialPayment(callback)` and `versapay.teardownClient(client)`.
 * The page never sees payment data: the buyer types it into the frame, which is served (and talks
 * to the API) from this product's origin.
 */

// The origin the script was loaded from is the frame's: read once, while the script runs.
const scriptUrl = (document.currentScript as HTMLScriptElement | null)?.src ?? '';
const FRAME_ORIGIN = scriptUrl ? new URL(scriptUrl).origin : location.origin;

/** How long after the iframe's load event its first message may still come. */
const LOAD_GRACE_MS = 1500;

/** Why a frame whose script never ran was not shown: in practice, the page's origin is not allowed. */
function refusedFrame(): string {
  return `versapay: the payment frame was refused on this page: pages on ${location.origin} may not show it. Add ${location.origin} to the sites allowed to show the payment frame (the back office, under Payment frame, or PUT /api/ecommerce/settings).`;
}

type Resolve = (result: Approval) => void;
type Reject = (error: Rejection) => void;

interface ClientApi {
  initFrame(container: Element, height?: string, width?: string): Promise<void>;
  onApproval(resolve: Resolve, reject?: Reject): void;
  onPartialPayment(callback: (result: PartialPayment) => void): void;
  submitEvents(): Promise<Approval>;
}

const INTERNAL = Symbol('versapay.client');

class Client {
  private frame: HTMLIFrameElement | null = null;
  private listener: ((e: MessageEvent) => void) | null = null;
  private resolvers: Resolve[] = [];
  private rejecters: Reject[] = [];
  private partials: Array<(r: PartialPayment) => void> = [];
  private pending: Array<{ resolve: Resolve; reject: (e: Rejection) => void }> = [];
  readonly api: ClientApi & { [INTERNAL]: Client; then: Promise<ClientApi>['then'] };

  constructor(
    private readonly session: string,
    private readonly styles: unknown,
    private readonly fontUrls: unknown,
  ) {
    const view: ClientApi & { [INTERNAL]: Client } = {
      [INTERNAL]: this,
      initFrame: (container, height, width) => this.initFrame(container, height, width),
      onApproval: (resolve, reject) => this.onApproval(resolve, reject),
      onPartialPayment: (callback) => this.onPartialPayment(callback),
      submitEvents: () => this.submitEvents(),
    };
    // Usable as a promise (`initClient(id).then(client => ...)`): it resolves with the same client
    // without `then`, or the promise machinery would unwrap it forever.
    this.api = { ...view, then: (ok, ko) => Promise.resolve(view).then(ok, ko) };
  }

  private post(message: PageMessage): void {
    this.frame?.contentWindow?.postMessage({ ...message, channel: CHANNEL, session: this.session }, FRAME_ORIGIN);
  }

  initFrame(container: Element, height = '358px', width = '500px'): Promise<void> {
    if (this.frame) throw new Error('versapay: this client already has a frame; teardownClient it first');
    const frame = document.createElement('iframe');
    frame.src = `${FRAME_ORIGIN}/ecommerce/frame?session=${encodeURIComponent(this.session)}&origin=${encodeURIComponent(location.origin)}`;
    frame.title = 'Secure payment form';
    frame.style.height = height;
    frame.style.width = width;
    frame.style.border = '0';
    frame.setAttribute('allow', 'payment');
    this.frame = frame;
    return new Promise<void>((resolve, reject) => {
      // Whether the frame's own script ran: a browser that refuses to show the frame (the server's
      // 403 for a page origin not allowed) still fires the iframe's load, but no script runs there.
      let loaded = false;
      let settled = false;
      const settle = (done: () => void) => {
        if (settled) return;
        settled = true;
        done();
      };
      this.listener = (e: MessageEvent) => {
        // Only the frame this client made, from the origin it was loaded from, on this session.
        if (e.source !== frame.contentWindow || e.origin !== FRAME_ORIGIN || !isEnvelope(e.data, this.session)) return;
        const m = e.data as unknown as FrameMessage;
        if (m.type === 'loaded') loaded = true;
        else if (m.type === 'ready') {
          loaded = true;
          this.post({ type: 'init', styles: this.styles ?? {}, fontUrls: this.fontUrls ?? [] });
        } else if (m.type === 'initialized') settle(resolve);
        else if (m.type === 'failed') settle(() => reject(new Error(m.error)));
        else this.deliver(m);
      };
      frame.addEventListener('load', () => {
        // The frame's first message may trail its load event a little: a bounded wait, then the reason.
        window.setTimeout(() => {
          if (loaded || this.frame !== frame) return;
          settle(() => reject(new Error(refusedFrame())));
        }, LOAD_GRACE_MS);
      });
      window.addEventListener('message', this.listener);
      container.appendChild(frame);
    });
  }

  private deliver(m: FrameMessage): void {
    if (m.type === 'approval') {
      for (const r of this.resolvers) r(m.result);
      for (const p of this.pending.splice(0)) p.resolve(m.result);
    } else if (m.type === 'rejection') {
      // A field in the frame holds the problem, and the frame focused it: the buyer goes there.
      if (m.invalid) {
        this.frame?.focus();
        this.post({ type: 'focus' });
      }
      for (const r of this.rejecters) r(m.error);
      for (const p of this.pending.splice(0)) p.reject(m.error);
    } else if (m.type === 'partial') {
      for (const p of this.partials) p(m.result);
    }
  }

  onApproval(resolve: Resolve, reject?: Reject): void {
    this.resolvers.push(resolve);
    if (reject) this.rejecters.push(reject);
  }

  onPartialPayment(callback: (result: PartialPayment) => void): void {
    this.partials.push(callback);
  }

  /** Submits the frame's form; also resolves (or rejects) with what onApproval gets. */
  submitEvents(): Promise<Approval> {
    const result = new Promise<Approval>((resolve, reject) => this.pending.push({ resolve, reject }));
    // Callers that use onApproval only must not see an unhandled rejection.
    result.catch(() => undefined);
    this.post({ type: 'submit' });
    return result;
  }

  teardown(): void {
    if (this.listener) window.removeEventListener('message', this.listener);
    this.frame?.remove();
    this.frame = null;
    this.listener = null;
    this.resolvers = [];
    this.rejecters = [];
    this.partials = [];
    this.pending = [];
  }
}

const versapay = {
  initClient(sessionId: string, styles?: unknown, fontUrls?: unknown) {
    return new Client(String(sessionId), styles, fontUrls).api;
  },
  teardownClient(client: { [INTERNAL]?: Client } | null | undefined): void {
    client?.[INTERNAL]?.teardown();
  },
};

(window as unknown as { versapay: typeof versapay }).versapay = versapay;
