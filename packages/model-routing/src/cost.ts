import type { NormalizedUsage } from '@patchbay/model-wire';
import type { TokenPrices } from './catalog';

/**
 * What an attempt cost at its route's price, in integer micro-USD (the unit budgets count in),
 * rounded up so the gateway never bills less than the vendor: facts file §7,
 * (input − cache reads − cache writes)·in + reads·read price + writes·write price (1-hour writes at
 * theirs) + output·out.
 * Prices are USD per million tokens, so tokens × price is already micro-USD.
 */
export function costMicros(price: TokenPrices, usage: Omit<NormalizedUsage, 'reasoningTokens'> | null): number {
  if (!usage) return 0;
  const cached = usage.cachedInputTokens;
  const written = usage.cacheWriteInputTokens;
  const written1h = usage.cacheWrite1hInputTokens;
  const plain = Math.max(0, usage.inputTokens - cached - written);
  const writePrice = price.cacheWritePerMillion ?? price.inputPerMillion;
  const micros =
    plain * price.inputPerMillion +
    cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
    (written - written1h) * writePrice +
    written1h * (price.cacheWrite1hPerMillion ?? writePrice) +
    usage.outputTokens * price.outputPerMillion;
  return Math.ceil(micros - 1e-9);
}

/** The worst case of a request on a route, to reserve before calling it: all input plus the whole output cap. */
export function worstCaseMicros(price: TokenPrices, inputTokens: number, maxOutputTokens: number): number {
  return Math.ceil(inputTokens * price.inputPerMillion + maxOutputTokens * price.outputPerMillion - 1e-9);
}
