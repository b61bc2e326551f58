import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/engine/account/profile';
import { settlementTokens } from '../../src/engine/gateway/settlement-tokens';

describe('settlement tokens', () => {
  it("of a new account have the reference's form, two letters and ten (SettlementToken ^[0-9A-Z]{12}$)", () => {
    const tokens = settlementTokens(defaultProfile('7K2M9QX4ZT8VB3NA', '2026-11-27T00:00:00.000Z', 'America/Toronto'));
    expect([tokens.card, tokens.bank, tokens.terminal, tokens.gift]).toEqual(['MA7K2M9QX4ZT', 'BA7K2M9QX4ZT', 'TP7K2M9QX4ZT', 'GC7K2M9QX4ZT']);
    expect(tokens.all).toHaveLength(4);
  });

  it('of an account made before them stay the ones its transactions and batches carry', () => {
    const { settlement_tokens: _made, ...earlier } = defaultProfile('7K2M9QX4ZT8VB3NA', '2026-11-27T00:00:00.000Z', 'America/Toronto');
    expect(settlementTokens(earlier).all).toEqual(['7K2M9QX4ZT8VB3NAMA', '7K2M9QX4ZT8VB3NABA', '7K2M9QX4ZT8VB3NATP', '7K2M9QX4ZT8VB3NAGC']);
  });
});
