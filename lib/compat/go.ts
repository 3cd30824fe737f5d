// Go's number formatting, for outputs that must match the original halo eval (written in Go) byte for
// byte: the Markdown scorecard and every report that prints the same figures. Pure, no imports.

/** Go's `%.<digits>f` (with `+` when `plus`): the nearest decimal, an exact tie to the even digit. */
export function goFixed(x: number, digits: number, plus = false): string {
  const negative = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  let text = abs.toFixed(digits);
  // toFixed breaks an exact tie upwards; Go (strconv) to even. Look at the exact expansion.
  const exact = abs.toFixed(Math.min(100, digits + 40));
  const dot = exact.indexOf(".");
  const tail = exact.slice(dot + 1 + digits);
  if (/^50*$/.test(tail)) {
    const truncated = exact.slice(0, digits === 0 ? dot : dot + 1 + digits);
    if (Number(truncated.at(-1)) % 2 === 0) text = truncated;
  }
  const sign = negative ? "-" : plus ? "+" : "";
  return sign + text;
}
