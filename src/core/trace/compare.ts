// Compares two traces (the node's rules against the expected ones) by outcome distribution and masquerade share.
import {NO_DNAT, type TraceResult} from './types.js'

export interface TraceComparison {
  same: boolean
  /** Outcomes the expected rules reach and the actual ones never do. */
  missing: Array<{outcome: string; expected: number}>
  /** Outcomes only the actual rules reach. */
  extra: Array<{outcome: string; actual: number}>
  /** Outcomes both reach with different probabilities. */
  changed: Array<{outcome: string; actual: number; expected: number}>
  /** Outcomes both reach where the masqueraded share differs (0 = never, 1 = always). */
  masquerade: Array<{outcome: string; actual: number; expected: number}>
}

const TOLERANCE = 1e-6

/** Compares two traces' outcome distributions and masquerade shares, within 1e-6 (statistic quantisation). */
export function compareTraces(actual: TraceResult, expected: TraceResult): TraceComparison {
  const c: TraceComparison = {same: true, missing: [], extra: [], changed: [], masquerade: []}
  const keys = [...new Set([...Object.keys(expected.endpoints), ...Object.keys(actual.endpoints)])].sort(compareOutcomes)
  for (const k of keys) {
    const a = actual.endpoints[k] ?? 0
    const e = expected.endpoints[k] ?? 0
    if (a <= TOLERANCE && e > TOLERANCE) c.missing.push({outcome: k, expected: e})
    else if (e <= TOLERANCE && a > TOLERANCE) c.extra.push({outcome: k, actual: a})
    else if (Math.abs(a - e) > TOLERANCE) c.changed.push({outcome: k, actual: a, expected: e})
    if (a > TOLERANCE && e > TOLERANCE && k !== 'DROP' && k !== 'REJECT') {
      const am = (actual.masqueraded[k] ?? 0) / a
      const em = (expected.masqueraded[k] ?? 0) / e
      if (Math.abs(am - em) > TOLERANCE) c.masquerade.push({outcome: k, actual: am, expected: em})
    }
  }
  c.same = c.missing.length + c.extra.length + c.changed.length + c.masquerade.length === 0
  return c
}

/** Endpoints first (in address order), then no-dnat, REJECT, DROP. */
export function compareOutcomes(a: string, b: string): number {
  const rank = (k: string): number => (k === NO_DNAT ? 1 : k === 'REJECT' ? 2 : k === 'DROP' ? 3 : 0)
  const d = rank(a) - rank(b)
  if (d !== 0) return d
  return a < b ? -1 : a > b ? 1 : 0
}

