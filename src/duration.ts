// Durations as kubectl writes them (`--timeout 30s`): shared by the flag definitions and the app services.
import {UsageError} from './errors.js'

/** Parses a kubectl/Go-style duration (`30s`, `5m`, `1m30s`, `500ms`, bare number = seconds) into milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy
  let total = 0
  let pos = 0
  for (let m = re.exec(v); m; m = re.exec(v)) {
    total += Number(m[1]) * {ms: 1, s: 1000, m: 60_000, h: 3_600_000}[m[2] as 'ms' | 's' | 'm' | 'h']
    pos = re.lastIndex
  }
  if (pos !== v.length || v === '') throw new UsageError(`invalid duration "${value}" for --${flag}`, 'Use e.g. 30s, 5m, 1m30s or 500ms.')
  return Math.round(total)
}
