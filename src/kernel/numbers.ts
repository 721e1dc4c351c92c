// Rounding shared by every part that shows or stores a computed decimal (money totals, refund
// balances, price changes, timings, chart coordinates): one rule, so two parts computing the
// same amount agree to the cent.

/** `n` rounded to two decimals (halves go up, as with Math.round). */
export const round2 = (n: number): number => Math.round(n * 100) / 100
