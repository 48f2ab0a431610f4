// Durations as kubectl writes them (`--timeout 30s`): shared by the flag definitions and the app services.
import {parseGoDuration} from './core/parse/go-duration.js'
import {UsageError} from './errors.js'

/** Parses a kubectl/Go-style duration (`30s`, `5m`, `1m30s`, `500ms`, bare number = seconds) into milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  const ns = parseGoDuration(v)
  if (ns === undefined || ns < 0n) throw new UsageError(`invalid duration "${value}" for --${flag}`, 'Use e.g. 30s, 5m, 1m30s or 500ms.')
  return Math.round(Number(ns) / 1e6)
}
