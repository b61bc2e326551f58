import type { TerminalRequest, TerminalResponse, LaneCreate, LanePatch } from '../../shared/schemas/lanes';
import type { Account } from '../account';
import type { CapturedSignature, CardPresentOutcome, CardPresentPort, CardPresentRequest } from '../card-present';
import type { EngineCore } from '../core';
import { getRecord } from '../records';
import type { LaneCardRead } from './card';
import { terminalCommand } from './commands';
import type { LaneDriver } from './driver-port';
import { LaneHub } from './hub';
import { SIGNATURE_KIND, type StoredSignature } from './model';
import { complete, giveUpAbandoned, readCard } from './payments';
import { createLane, getLane, listLanes, removeLane, updateLane, type LaneView } from './lane-records';

export type { LaneCardRead } from './card';
export type { LaneView } from './lane-records';
export type { StoredSignature } from './model';
export type * from './driver-port';
export { deviceFailureCode } from './driver-port';

/**
 * The lanes domain: the card-present payment devices on this machine's serial ports. Lane
 * settings are records; the devices are driven through a LaneDriver (src/terminal in the app,
 * absent in processes that do not drive lanes). It is the CardPresentPort the gateway uses.
 */
export interface Lanes extends CardPresentPort {
  list(): Promise<LaneView[]>;
  get(laneid: string): Promise<LaneView>;
  create(input: LaneCreate): Promise<LaneView>;
  update(laneid: string, patch: LanePatch): Promise<LaneView>;
  remove(laneid: string): Promise<void>;
  /** POST /api/gateway/v1/terminal. */
  command(laneid: string, command: TerminalRequest['command']): Promise<TerminalResponse>;
  readCard(request: CardPresentRequest): Promise<LaneCardRead>;
  complete(request: CardPresentRequest, outcome: CardPresentOutcome): Promise<{ signature?: CapturedSignature }>;
  /** The signature stored for a card-present payment (by its request id). */
  signatureFor(requestId: string): Promise<StoredSignature | undefined>;
  /** Called after a signature is stored (at completion or by RequestSignature); returns an unsubscribe. */
  onSignature(listener: (signature: StoredSignature) => void): () => void;
  /** Opens the ports of enabled lanes; later changes open and close them as they happen. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface LanesOptions {
  driver?: LaneDriver;
  /** A payment whose card was read but that is not completed within this is given up (default 120 s). */
  completeWithinMs?: number;
}

export function createLanes(core: EngineCore, account: Account, options: LanesOptions = {}): Lanes {
  const hub = new LaneHub(core, account, options.driver);
  const completeWithinMs = options.completeWithinMs ?? 120_000;
  core.onTick('lanes.give-up-abandoned-payments', async (now) => giveUpAbandoned(hub, now, completeWithinMs));
  return {
    list: () => listLanes(hub),
    get: (laneid) => getLane(hub, laneid),
    create: (input) => createLane(hub, input),
    update: (laneid, patch) => updateLane(hub, laneid, patch),
    remove: (laneid) => removeLane(hub, laneid),
    command: (laneid, command) => terminalCommand(hub, laneid, command),
    readCard: (request) => readCard(hub, request),
    complete: (request, outcome) => complete(hub, request, outcome),
    async signatureFor(requestId) {
      return (await getRecord<StoredSignature>(core, SIGNATURE_KIND, requestId))?.data;
    },
    onSignature: (listener) => hub.onSignature(listener),
    start: () => hub.start(),
    close: () => hub.close(),
  };
}
