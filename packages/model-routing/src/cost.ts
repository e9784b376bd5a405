import type { NormalizedUsage } from '@patchbay/model-wire';
import type { TokenPrices } from './catalog';

/**
 * What an attempt cost at its route's price, in integer micro-USD (the unit budgets count in),
 * rounded up so the gateway never bills less than the vendor: facts file §7,
 * (input − cache reads − cache writes)·in + reads·read price + writes·write price + output·out.
 * Prices are USD per million tokens, so tokens × price is already micro-USD.
 */
export function costMicros(price: TokenPrices, usage: NormalizedUsage | null): number {
  if (!usage) return 0;
  const cached = usage.cachedInputTokens;
  const written = usage.cacheWriteInputTokens;
  const plain = Math.max(0, usage.inputTokens - cached - written);
  const micros =
    plain * price.inputPerMillion +
    cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
    written * (price.cacheWritePerMillion ?? price.inputPerMillion) +
    usage.outputTokens * price.outputPerMillion;
  return Math.ceil(micros - 1e-9);
}

/** The worst case of a request on a route, to reserve before calling it: all input plus the whole output cap. */
export function worstCaseMicros(price: TokenPrices, inputTokens: number, maxOutputTokens: number): number {
  return Math.ceil(inputTokens * price.inputPerMillion + maxOutputTokens * price.outputPerMillion - 1e-9);
}
