// Go durations: time.ParseDuration (nanoseconds as bigint) and time.Duration.String(). The one duration parser:
// component-config fields, pflag values, the CLI's timeout flags and kubectl's --request-timeout all use it.

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
}

/** Nanoseconds of a Go duration string, or undefined when time.ParseDuration would reject it. */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text
  if (s === '') return undefined
  let neg = false
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0n
  if (s === '') return undefined
  let total = 0n
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?([^\d.]+)/.exec(s)
    if (!m) return undefined
    const [whole, intPart = '', fracPart, unitText = ''] = m
    if (intPart === '' && (fracPart === undefined || fracPart === '')) return undefined
    const unit = Object.hasOwn(DURATION_UNITS, unitText) ? DURATION_UNITS[unitText] : undefined
    if (unit === undefined) return undefined
    let ns = BigInt(intPart === '' ? '0' : intPart) * unit
    if (fracPart !== undefined && fracPart !== '') {
      // Go truncates the fraction to whole nanoseconds.
      ns += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length)
    }
    total += ns
    s = s.slice(whole.length)
  }
  if (total > 9_223_372_036_854_775_807n) return undefined
  return neg ? -total : total
}

/** Formats nanoseconds like Go's time.Duration.String(): `4h0m0s`, `1m30s`, `100ms`, `0s`. */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s'
  const neg = nanos < 0n
  let u = neg ? -nanos : nanos
  const sign = neg ? '-' : ''
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`
    if (u < 1_000_000n) return `${sign}${fraction(u, 1_000n)}µs`
    return `${sign}${fraction(u, 1_000_000n)}ms`
  }
  const h = u / 3_600_000_000_000n
  u -= h * 3_600_000_000_000n
  const m = u / 60_000_000_000n
  u -= m * 60_000_000_000n
  const secs = fraction(u, 1_000_000_000n)
  if (h > 0n) return `${sign}${h}h${m}m${secs}s`
  if (m > 0n) return `${sign}${m}m${secs}s`
  return `${sign}${secs}s`
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit
  const rest = value % unit
  if (rest === 0n) return String(whole)
  const digits = unit.toString().length - 1
  return `${whole}.${rest.toString().padStart(digits, '0').replace(/0+$/, '')}`
}

/** Canonical Go form of a duration string (`"4h"` → `"4h0m0s"`), or undefined when invalid. */
export function normalizeGoDuration(text: string): string | undefined {
  const ns = parseGoDuration(text)
  return ns === undefined ? undefined : formatGoDuration(ns)
}
