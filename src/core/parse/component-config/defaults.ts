// Defaulting
import type {JsonObject, JsonValue, Origin} from '../../model/config-issue.js'
import {parseGoDuration} from '../go-duration.js'
import {cloneJson, dropOriginsUnder, getAt, setAt} from './json-pointer.js'


/** One upstream default. */
export interface DefaultSpec {
  path: string
  /** The default value, or a function of the (partially defaulted) values when upstream computes it. */
  value: JsonValue | ((values: JsonObject) => JsonValue | undefined)
  /** Go non-pointer field: its zero value (0, "", "0s", false) is indistinguishable from "unset". */
  zeroIsUnset?: boolean
  /** Applies from this minor version on (inclusive). */
  since?: number
  /** Applies before this minor version only. */
  until?: number
  /** Where upstream sets it, for the report. */
  source: string
}

/** A default that was filled in, and why. */
export interface AppliedDefault {
  path: string
  value: JsonValue
  /**
   * `omitted`: absent; `null`: written as null; `zero`: written as a zero value that means unset;
   * `normalized`: completed by the component (e.g. a default port appended to an address).
   */
  reason: 'omitted' | 'null' | 'zero' | 'normalized'
  /** The value that was written, for `zero`. */
  written?: JsonValue
  writtenAt?: Origin
  source: string
}

/** Whether `value` is the Go zero value of the field's JSON form. */
export function isGoZero(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true
  if (value === 0 || value === '' || value === false) return true
  if (typeof value === 'string') {
    const ns = parseGoDuration(value)
    return ns === 0n && /[a-zµμ]/i.test(value)
  }
  return false
}

/**
 * Fills defaults into a copy of `values`. `version` (minor) selects version-specific defaults; unknown → newest.
 * Returns the new values, the origins of the defaulted fields, and the list of what was applied.
 */
export function applyDefaultSpecs(
  values: JsonObject,
  origins: Record<string, Origin>,
  specs: readonly DefaultSpec[],
  version: number | undefined,
): {values: JsonObject; origins: Record<string, Origin>; applied: AppliedDefault[]} {
  const next = cloneJson(values)
  const nextOrigins = {...origins}
  const applied: AppliedDefault[] = []
  for (const spec of specs) {
    if (version !== undefined && spec.since !== undefined && version < spec.since) continue
    if (version !== undefined && spec.until !== undefined && version >= spec.until) continue
    if (version === undefined && spec.until !== undefined) continue
    const current = getAt(next, spec.path)
    let reason: AppliedDefault['reason'] | undefined
    if (current === undefined) reason = 'omitted'
    else if (current === null) reason = 'null'
    else if (spec.zeroIsUnset && isGoZero(current)) reason = 'zero'
    if (reason === undefined) continue
    const value = typeof spec.value === 'function' ? spec.value(next) : spec.value
    if (value === undefined) continue
    const a: AppliedDefault = {path: spec.path, value, reason, source: spec.source}
    if (reason === 'zero' && current !== undefined) a.written = current
    const writtenAt = origins[spec.path]
    if (reason !== 'omitted' && writtenAt) a.writtenAt = writtenAt
    applied.push(a)
    setAt(next, spec.path, cloneJson(value))
    dropOriginsUnder(nextOrigins, spec.path)
    nextOrigins[spec.path] = {kind: 'default', detail: spec.source}
  }
  return {values: next, origins: nextOrigins, applied}
}

/** Stable JSON for display: strings as-is, everything else JSON. */
export function formatValue(value: JsonValue | undefined): string {
  if (value === undefined) return '<unset>'
  if (typeof value === 'string') return value === '' ? '""' : value
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',')
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.length === 0) return '{}'
    return entries.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(',')
  }
  return JSON.stringify(value)
}

/** "file:line" or "file" or undefined. */
export function originLocation(o: Origin | undefined): string | undefined {
  if (!o?.source) return undefined
  return o.line === undefined ? o.source : `${o.source}:${o.line}`
}
