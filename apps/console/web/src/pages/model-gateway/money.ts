/** USD as the gateway sends it (a number of dollars): cents for round sums, up to six decimals for a model call's micro-spend. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value === 0) return '$0.00';
  const digits = Math.abs(value) >= 0.01 ? 2 : 6;
  return `$${value.toFixed(digits)}`;
}

/** A number field's value in USD: blank is null (no limit or budget). */
export function usdOrNull(value: FormDataEntryValue | null): number | null {
  const text = String(value ?? '').trim();
  return text === '' ? null : Number(text);
}

/** What a budget has drawn, and what it has left when there is one: "$0.0035 spent, $0.996500 left". */
export function spentOfBudget(spent: number, budget: number | null): string {
  if (budget === null) return `${formatUsd(spent)} spent, no budget`;
  return `${formatUsd(spent)} spent, ${formatUsd(Math.max(0, budget - spent))} left`;
}
