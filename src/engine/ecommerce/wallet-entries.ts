import type { EngineCore } from '../core';
import { fail } from '../errors';
import type { Wallets } from '../wallets';
import { FUNDS, type FundDoc } from '../wallets/records';
import type { CreditCardTokenUpdate } from '../../shared/schemas/ecommerce';
import type { SessionData } from './sessions';

type Kind = 'credit_card' | 'bank_account';

/** The frame's edits of a session wallet's entries, as far as the session's options allow them. */
export function createWalletEntries(deps: { core: EngineCore; wallets: Wallets; alive: (id: string) => Promise<SessionData> }) {
  const { core, wallets, alive } = deps;
  const sessionWalletFund = async (s: SessionData, walletId: string, fundId: string, kind: 'credit_card' | 'bank_account', allow: 'allowEdit' | 'allowDelete') => {
    if (!s.wallet || s.wallet !== walletId) throw fail.notFound('wallet_not_found', `Wallet ${walletId} is not this session's wallet`);
    if (s.options.wallet?.[allow] !== true) throw fail.forbidden('wallet_change_not_allowed', `This session's options do not allow ${allow === 'allowEdit' ? 'editing' : 'removing'} wallet entries (wallet.${allow})`);
    const fund = (await core.get<FundDoc>(FUNDS, fundId))?.data;
    if (!fund || fund.wallet !== walletId || fund.kind !== kind || fund.inactive) throw fail.notFound('payment_method_not_found', `No ${kind.replace('_', ' ')} ${fundId} in wallet ${walletId}`);
    if (s.options.wallet?.tokens?.length && !s.options.wallet.tokens.includes(fundId)) throw fail.forbidden('wallet_change_not_allowed', `Payment method ${fundId} is not offered on this session`);
  };

  return {
    async updateWalletMethod(id: string, walletId: string, fundId: string, kind: Kind, patch: CreditCardTokenUpdate): Promise<void> {
      const s = await alive(id);
      await sessionWalletFund(s, walletId, fundId, kind, 'allowEdit');
      if (kind === 'bank_account') {
        await wallets.updateMethod(walletId, fundId, { bank_account: { ...(patch.accountHolder ? { account_holder: patch.accountHolder } : {}) } });
        return;
      }
      await wallets.updateMethod(walletId, fundId, {
        credit_card: {
          ...(patch.accountHolder ? { name: patch.accountHolder } : {}),
          ...(patch.expirationMonth !== undefined ? { expiry_month: patch.expirationMonth } : {}),
          ...(patch.expirationYear !== undefined ? { expiry_year: patch.expirationYear } : {}),
        },
      });
    },

    async deleteWalletMethod(id: string, walletId: string, fundId: string, kind: Kind): Promise<void> {
      const s = await alive(id);
      await sessionWalletFund(s, walletId, fundId, kind, 'allowDelete');
      await wallets.removeMethod(walletId, fundId);
    },
  };
}
