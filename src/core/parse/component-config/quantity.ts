// Kubernetes resource quantities (`500Mi`, `1e3`) and eviction thresholds.

const QUANTITY_RE = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/
const QUANTITY_SCALE: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
}

/** The numeric value of a Kubernetes resource quantity (`500Mi` → 524288000), or undefined when invalid. */
export function parseQuantity(text: string): number | undefined {
  const m = QUANTITY_RE.exec(text.trim())
  if (!m) return undefined
  const num = Number(m[1])
  const suffix = m[2] ?? ''
  if (/^[eE]/.test(suffix)) return num * 10 ** Number(suffix.slice(1))
  const scale = Object.hasOwn(QUANTITY_SCALE, suffix) ? QUANTITY_SCALE[suffix] : undefined
  return scale === undefined ? undefined : num * scale
}

/** An eviction threshold value: a quantity or a percentage (`10%`). */
export function isThreshold(text: string): boolean {
  return /^\d+(?:\.\d+)?%$/.test(text.trim()) || parseQuantity(text) !== undefined
}
