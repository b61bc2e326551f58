import { create } from 'zustand';
import type { PosState } from './pos-model';
import { LANE_KEY, load, posKit } from './pos-effects';
import { cardActions, runAction, saleActions, screenActions, sessionActions } from './pos-actions';

export type { CardFlow, CardOutcome, Dialog, LaneLive, Notice, ServerState, View } from './pos-model';

/**
 * The register screen's state. The actions are written by what they are about (`pos-actions.ts`),
 * the reactions to the server and its event stream in `pos-effects.ts`.
 */
export const usePos = create<PosState>((set, get) => {
  const k = posKit(set, get);
  return {
    api: null,
    lanes: {},
    lanesLoaded: false,
    laneid: load(LANE_KEY, localStorage),
    shift: null,
    register: null,
    view: 'lanes',
    sale: null,
    selected: null,
    dialog: null,
    card: null,
    done: null,
    notice: null,
    busy: false,
    live: false,
    server: 'unknown',
    drawer: null,
    sync: null,

    ...sessionActions(k),
    ...screenActions(k),
    run: runAction(k),
    ...saleActions(k),
    ...cardActions(k),
  };
});
