// biome-ignore-all lint/correctness/noPrecisionLoss: AS 241's coefficients as published (extra digits round)
// The standard normal distribution: the quantile function by Wichura's AS 241 (PPND16, relative
// error about 1e-16) and the CDF through the Chebyshev erfc of Numerical Recipes (fractional error
// below 1.2e-7, enough for power calculations). Used by the Wilson interval and the power helpers.
import { finite, probability } from "./_check.ts";

/** AS 241 rational approximations, numerator and denominator, highest power first. */
const CENTRAL = {
  num: [
    2509.0809287301226727, 33430.575583588128105, 67265.770927008700853, 45921.953931549871457,
    13731.693765509461125, 1971.5909503065514427, 133.14166789178437745, 3.387132872796366608,
  ],
  den: [
    5226.495278852545925, 28729.085735721942674, 39307.89580009271061, 21213.794301586595867,
    5394.1960214247511077, 687.1870074920579083, 42.313330701600911252, 1,
  ],
};
const NEAR = {
  num: [
    7.7454501427834140764e-4, 0.0227238449892691845833, 0.24178072517745061177, 1.27045825245236838258,
    3.64784832476320460504, 5.7694972214606914055, 4.6303378461565452959, 1.42343711074968357734,
  ],
  den: [
    1.05075007164441684324e-9, 5.475938084995344946e-4, 0.0151986665636164571966, 0.14810397642748007459,
    0.68976733498510000455, 1.6763848301838038494, 2.05319162663775882187, 1,
  ],
};
const TAIL = {
  num: [
    2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386, 0.026532189526576123093,
    0.29656057182850489123, 1.7848265399172913358, 5.4637849111641143699, 6.6579046435011037772,
  ],
  den: [
    2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5, 7.868691311456132591e-4,
    0.0148753612908506148525, 0.13692988092273580531, 0.59983220655588793769, 1,
  ],
};
/** Numerical Recipes erfcc coefficients, lowest power first. */
const ERFC = [
  -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
  -0.82215223, 0.17087277,
];

function horner(coefficients: readonly number[], x: number): number {
  let acc = 0;
  for (const c of coefficients) acc = acc * x + c;
  return acc;
}

function rational(table: { num: readonly number[]; den: readonly number[] }, r: number): number {
  return horner(table.num, r) / horner(table.den, r);
}

/** The p-quantile of the standard normal (AS 241); p in (0, 1). */
export function normalQuantile(p: number): number {
  probability("compute a normal quantile", "p", p, true);
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) return q * rational(CENTRAL, 0.180625 - q * q);
  const r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const value = r <= 5 ? rational(NEAR, r - 1.6) : rational(TAIL, r - 5);
  return q < 0 ? -value : value;
}

/** The standard normal CDF at x (fractional error below 1.2e-7). */
export function normalCdf(x: number): number {
  finite("compute the normal CDF", "x", x);
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Complementary error function, Numerical Recipes' Chebyshev fit (erfcc). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  let poly = 0;
  for (let i = ERFC.length - 1; i >= 0; i--) poly = poly * t + ERFC[i]!;
  const ans = t * Math.exp(-z * z + poly);
  return x >= 0 ? ans : 2 - ans;
}
