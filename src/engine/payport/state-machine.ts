import { fail } from '../errors';

/**
 * A state machine as data: each action names the states it applies to and the state it leads to.
 * Any other move is refused with 412 `illegal_transition`, naming where the record is and where
 * the action applies, so a client can tell a stale screen from a bug.
 */
export type Machine<S extends string, A extends string> = Record<A, { from: readonly S[]; to: S }>;

export function move<S extends string, A extends string>(machine: Machine<S, A>, what: string, token: string, state: S, action: A): S {
  const rule = machine[action];
  if (!rule.from.includes(state)) {
    throw fail.precondition('illegal_transition', `Cannot ${action} ${what} ${token}: it is ${state.replace(/_/g, ' ')}, and ${action} applies only to ${rule.from.join(', ')}`);
  }
  return rule.to;
}
