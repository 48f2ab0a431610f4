// kube-proxy's computeProbability: fmt.Sprintf("%0.10f", 1.0/float64(n)). Go rounds the exact binary value of the
// double half-to-even; JavaScript's toFixed rounds ties up (e.g. n=2048), so the decimal expansion is done exactly.

const cache: string[] = []

/** The exact value of a positive finite double as numerator / 2^shift. */
function exactDyadic(x: number): {num: bigint; shift: bigint} {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const hi = view.getUint32(0)
  const lo = view.getUint32(4)
  const exp = (hi >>> 20) & 0x7ff
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  let e: number
  if (exp === 0) e = -1074
  else {
    mant |= 1n << 52n
    e = exp - 1075
  }
  return e >= 0 ? {num: mant << BigInt(e), shift: 0n} : {num: mant, shift: BigInt(-e)}
}

/** `%0.10f` of a non-negative double, rounded half-to-even on its exact value. */
export function formatFixed10(x: number): string {
  if (x === 0) return '0.0000000000'
  const {num, shift} = exactDyadic(x)
  const scaled = num * 10n ** 10n
  const denom = 1n << shift
  let q = scaled / denom
  const twice = (scaled % denom) * 2n
  if (twice > denom || (twice === denom && q % 2n === 1n)) q += 1n
  const digits = q.toString().padStart(11, '0')
  return `${digits.slice(0, -10)}.${digits.slice(-10)}`
}

/** The probability text for the i-th of n endpoints: 1/(n-i) with 10 decimals. */
export function computeProbability(n: number): string {
  let s = cache[n]
  if (s === undefined) {
    s = formatFixed10(1 / n)
    if (n < 4096) cache[n] = s
  }
  return s
}
