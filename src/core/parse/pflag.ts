// Command-line parsing the way spf13/pflag does it for the kubelet and kube-proxy: `--name=value`,
// `--name value` (non-boolean flags), bare `--bool`, `-v=2`/`-v 2` shorthands, `--` ends the flags, and
// underscores normalised to dashes (cliflag.WordSepNormalizeFunc). Each flag keeps its origin.
import type {ConfigIssue, Origin} from './component-config.js'
import {parseGoDuration} from './go-duration.js'

export type FlagValueType =
  | 'bool'
  | 'string'
  | 'int'
  | 'float'
  | 'duration'
  | 'stringSlice'
  | 'mapStringString'
  | 'mapStringBool'
  | 'langleMap'
  | 'colonMultimap'
  | 'taints'
  | 'other'

export interface FlagSpec {
  name: string
  type: FlagValueType
  shorthand?: string
  /** pflag NoOptDefVal: the flag may appear without a value (`--version`). */
  optionalValue?: boolean
}

/** A word of a command line and where it came from. */
export interface ArgToken {
  text: string
  origin: Origin
  /** Variable it was expanded from (`$KUBELET_EXTRA_ARGS`), if any. */
  via?: string
}

export interface ParsedFlag {
  /** Normalised name without dashes. */
  name: string
  /** The value as pflag would Set() it (`true` for a bare boolean flag). */
  value: string
  /** How it was written, value included: `--max-pods=250`, `--config /etc/x`. */
  written: string
  origin: Origin
  via?: string
  /** Position among the parsed flags (later occurrences win). */
  index: number
  spec?: FlagSpec
}

export interface ParsedArgs {
  flags: ParsedFlag[]
  /** Non-flag words. The kubelet and kube-proxy take none, so any is an error there. */
  positional: ArgToken[]
  issues: ConfigIssue[]
}

export function normalizeFlagName(name: string): string {
  return name.replaceAll('_', '-')
}

function at(origin: Origin): {source?: string; line?: number} {
  return {...(origin.source === undefined ? {} : {source: origin.source}), ...(origin.line === undefined ? {} : {line: origin.line})}
}

/**
 * Parses `tokens` (the arguments after the executable). `lookup` returns the spec of a known flag; unknown
 * flags take the next word as their value only when it does not look like a flag.
 */
export function parsePflags(tokens: readonly ArgToken[], lookup: (name: string) => FlagSpec | undefined, shorthands: Record<string, string> = {}): ParsedArgs {
  const out: ParsedArgs = {flags: [], positional: [], issues: []}
  let i = 0
  const push = (tok: ArgToken, name: string, value: string, written: string): void => {
    const spec = lookup(name)
    const f: ParsedFlag = {name, value, written, origin: tok.origin, index: out.flags.length}
    if (tok.via !== undefined) f.via = tok.via
    if (spec) f.spec = spec
    out.flags.push(f)
  }
  while (i < tokens.length) {
    const tok = tokens[i] as ArgToken
    const t = tok.text
    if (t === '--') {
      out.positional.push(...tokens.slice(i + 1))
      break
    }
    if (t.startsWith('--') && t.length > 2) {
      const body = t.slice(2)
      const eq = body.indexOf('=')
      const name = normalizeFlagName(eq === -1 ? body : body.slice(0, eq))
      if (eq !== -1) {
        push(tok, name, body.slice(eq + 1), t)
        i++
        continue
      }
      const spec = lookup(name)
      const next = tokens[i + 1]
      if (spec?.type === 'bool' || spec?.optionalValue) {
        push(tok, name, spec.type === 'bool' ? 'true' : '', t)
        i++
        continue
      }
      if (spec) {
        if (!next) {
          out.issues.push({severity: 'error', code: 'flag-needs-argument', ...at(tok.origin), message: `flag needs an argument: --${name}`})
          i++
          continue
        }
        push(tok, name, next.text, `${t} ${next.text}`)
        i += 2
        continue
      }
      if (next && !next.text.startsWith('-')) {
        push(tok, name, next.text, `${t} ${next.text}`)
        i += 2
      } else {
        push(tok, name, 'true', t)
        i++
      }
      continue
    }
    if (t.startsWith('-') && t.length > 1 && !/^-\d/.test(t)) {
      const c = t[1] ?? ''
      const long = shorthands[c]
      if (!long) {
        out.issues.push({severity: 'error', code: 'unknown-shorthand', ...at(tok.origin), message: `unknown shorthand flag: '${c}' in ${t}`})
        i++
        continue
      }
      const rest = t.slice(2)
      const spec = lookup(long)
      if (rest.startsWith('=')) push(tok, long, rest.slice(1), t)
      else if (rest !== '') push(tok, long, rest, t)
      else if (spec?.type === 'bool') push(tok, long, 'true', t)
      else {
        const next = tokens[i + 1]
        if (!next) {
          out.issues.push({severity: 'error', code: 'flag-needs-argument', ...at(tok.origin), message: `flag needs an argument: -${c}`})
          i++
          continue
        }
        push(tok, long, next.text, `${t} ${next.text}`)
        i += 2
        continue
      }
      i++
      continue
    }
    out.positional.push(tok)
    i++
  }
  return out
}

/** strconv.ParseBool. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false
  return undefined
}

/** strconv.ParseInt(s, 0, 64): decimal, 0x hex, 0o/0 octal, 0b binary, optional sign and underscores. */
export function parseGoInt(s: string): number | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$/.exec(s)
  if (!m) return undefined
  const body = (m[2] ?? '').replaceAll('_', '')
  let n: number
  if (/^0[xX]/.test(body)) n = parseInt(body.slice(2), 16)
  else if (/^0[bB]/.test(body)) n = parseInt(body.slice(2), 2)
  else if (/^0[oO]/.test(body)) n = parseInt(body.slice(2), 8)
  else if (/^0\d/.test(body)) n = parseInt(body.slice(1), 8)
  else n = parseInt(body, 10)
  if (!Number.isFinite(n)) return undefined
  return m[1] === '-' ? -n : n
}

/** Checks a flag value against its type; returns an error message when pflag's Set() would fail. */
export function validateFlagValue(type: FlagValueType, value: string): string | undefined {
  switch (type) {
    case 'bool':
      return parseGoBool(value) === undefined ? `invalid boolean ${JSON.stringify(value)}` : undefined
    case 'int':
      return parseGoInt(value) === undefined ? `invalid integer ${JSON.stringify(value)}` : undefined
    case 'float':
      return value.trim() === '' || Number.isNaN(Number(value)) ? `invalid number ${JSON.stringify(value)}` : undefined
    case 'duration':
      return parseGoDuration(value) === undefined ? `invalid duration ${JSON.stringify(value)} (examples: 30s, 5m, 1h)` : undefined
    default:
      return undefined
  }
}

/** pflag's StringSlice splits on commas with CSV quoting. */
export function splitCsv(value: string): string[] {
  if (value === '') return []
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < value.length; i++) {
    const c = value[i] ?? ''
    if (quoted) {
      if (c === '"' && value[i + 1] === '"') {
        cur += '"'
        i++
      } else if (c === '"') quoted = false
      else cur += c
    } else if (c === '"' && cur === '') quoted = true
    else if (c === ',') {
      out.push(cur)
      cur = ''
    } else cur += c
  }
  out.push(cur)
  return out
}

/** Splits a command-line text (ps output, a log line) into words with POSIX-shell-like quoting. */
export function splitShellWords(text: string): string[] {
  const words: string[] = []
  let cur = ''
  let has = false
  let quote: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? ''
    if (quote) {
      if (c === quote) quote = undefined
      else if (c === '\\' && quote === '"' && i + 1 < text.length && '"\\$`'.includes(text[i + 1] ?? '')) cur += text[++i] ?? ''
      else cur += c
      continue
    }
    if (c === '"' || c === "'") {
      quote = c
      has = true
      continue
    }
    if (c === '\\' && i + 1 < text.length) {
      cur += text[++i] ?? ''
      has = true
      continue
    }
    if (/\s/.test(c)) {
      if (has) words.push(cur)
      cur = ''
      has = false
      continue
    }
    cur += c
    has = true
  }
  if (has) words.push(cur)
  return words
}
