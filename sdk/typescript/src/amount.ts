/**
 * Amounts as people type and read them. The API counts in base units (1 DRV = 10^9); amounts are
 * `bigint` base units in this SDK. Parsing is exact: more decimals than the unit has, or an
 * amount above 2^128−1, is refused rather than rounded.
 */

/** Decimal places of one DRV. */
export const DRV_DECIMALS = 9;
/** Base units in one DRV. */
export const BASE_UNITS_PER_DRV = 10n ** 9n;
const U128_MAX = (1n << 128n) - 1n;

function scaled(number: string, decimals: number, input: string): bigint {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(number);
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) throw new Error(`invalid amount ${JSON.stringify(input)}`);
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) throw new Error(`invalid amount ${JSON.stringify(input)}: at most ${decimals} decimal places`);
  const units = BigInt(whole || '0') * 10n ** BigInt(decimals) + BigInt((fraction || '0').padEnd(decimals, '0') || '0');
  if (units > U128_MAX) throw new Error(`amount ${JSON.stringify(input)} is too large`);
  return units;
}

function withoutSuffix(text: string, suffix: string): string | null {
  return suffix !== '' && text.toLowerCase().endsWith(suffix.toLowerCase()) ? text.slice(0, -suffix.length).trimEnd() : null;
}

/** Base units (`"1500"`) or DRV with a suffix (`"1.5drv"`, `"2 DRV"`, `".25drv"`), in base units. */
export function parseDrv(input: string): bigint {
  const text = input.trim();
  const drv = withoutSuffix(text, 'drv');
  if (drv !== null) return scaled(drv, DRV_DECIMALS, input);
  if (!/^\d+$/.test(text)) throw new Error(`invalid amount ${JSON.stringify(input)}: base units (1500) or DRV with a suffix (1.5drv)`);
  return scaled(text, 0, input);
}

/** Base units of a token, or whole tokens written with a point (`"1.5"`) or the symbol (`"2GLD"`). */
export function parseTokenAmount(input: string, symbol: string, decimals: number): bigint {
  const text = input.trim();
  const tokens = withoutSuffix(text, symbol);
  if (tokens !== null) return scaled(tokens, decimals, input);
  if (text.includes('.')) return scaled(text, decimals, input);
  if (!/^\d+$/.test(text)) throw new Error(`invalid amount ${JSON.stringify(input)}`);
  return scaled(text, 0, input);
}

/** `base units` with `decimals` places and only the significant decimals: `1.5 GLD`. */
export function formatToken(baseUnits: bigint, decimals: number, symbol: string): string {
  const unit = 10n ** BigInt(decimals);
  const whole = baseUnits / unit;
  const fraction = baseUnits % unit;
  if (fraction === 0n) return `${whole} ${symbol}`;
  return `${whole}.${fraction.toString().padStart(decimals, '0').replace(/0+$/, '')} ${symbol}`;
}

/** DRV with only the significant decimals: `1.5 DRV`. */
export function formatDrv(baseUnits: bigint): string {
  return formatToken(baseUnits, DRV_DECIMALS, 'DRV');
}
