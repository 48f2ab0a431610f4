// systemd units as `systemctl cat UNIT` prints them (the unit file, then each drop-in, each preceded by a
// "# /path" header), EnvironmentFile= files, and the effective ExecStart= command line with $VAR / ${VAR}
// expanded the way systemd does. Rules from systemd.service(5), systemd.exec(5), systemd.syntax(7).
import {ParseError} from '../../errors.js'
import type {ConfigIssue, Origin} from './component-config.js'

/** One file of the unit as listed by `systemctl cat`. */
export interface UnitFile {
  path: string
  kind: 'unit' | 'drop-in'
  /** Line of the input where the file's first content line is. */
  firstInputLine: number
}

/** A `Key=value` line (continuations joined). `line` is the line in the unit file, `inputLine` in the input text. */
export interface UnitDirective {
  file: string
  line: number
  inputLine: number
  section: string
  key: string
  value: string
}

/** An environment variable and where it was set. */
export interface EnvVar {
  name: string
  value: string
  /** The unit file or environment file, and its line. */
  origin: Origin
}

export interface EnvironmentFileRef {
  path: string
  /** `EnvironmentFile=-/path`: a missing file is not an error. */
  optional: boolean
  origin: Origin
}

export interface ExecCommand {
  /** The value after `ExecStart=`, prefixes included, continuations joined. */
  raw: string
  /** Prefix characters (`-`, `@`, `+`, `!`, `!!`, `:`). */
  prefix: string
  /** Words after unquoting, before variable expansion; words[0] is the executable. */
  words: string[]
  origin: Origin
}

export interface SystemdUnit {
  /** The unit name from the first header (`kubelet.service`), when known. */
  name?: string
  files: UnitFile[]
  directives: UnitDirective[]
  /** Effective Environment= assignments (after `Environment=` resets), in order; later ones win. */
  environment: EnvVar[]
  environmentFiles: EnvironmentFileRef[]
  /** Effective ExecStart= lines after resets. More than one is an error for non-oneshot services. */
  execStart: ExecCommand[]
  issues: ConfigIssue[]
}

const HEADER_RE = /^# (\/\S+)$/

/**
 * Parses `systemctl cat UNIT` output, or a single unit file (then `source` names it). Throws ParseError when
 * the text has no unit content at all (no section header and no Key=value line).
 */
export function parseSystemctlCat(text: string, options: {source?: string} = {}): SystemdUnit {
  const lines = text.split(/\r?\n/)
  const unit: SystemdUnit = {files: [], directives: [], environment: [], environmentFiles: [], execStart: [], issues: []}
  let current: UnitFile | undefined
  let fileLine = 0
  let section = ''
  let sawContent = false
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? ''
    const header = HEADER_RE.exec(raw)
    const prevBlank = i === 0 || (lines[i - 1] ?? '').trim() === ''
    if (header && prevBlank && (header[1]?.endsWith('.service') || header[1]?.endsWith('.conf') || /\.(socket|target|timer|mount|path)$/.test(header[1] ?? '') || /\/systemd\//.test(header[1] ?? ''))) {
      const path = header[1] ?? ''
      current = {path, kind: unit.files.length === 0 && !/\.d\/[^/]+\.conf$/.test(path) ? 'unit' : 'drop-in', firstInputLine: i + 2}
      if (unit.files.length === 0 && current.kind === 'unit') unit.name = path.split('/').at(-1)
      unit.files.push(current)
      fileLine = 0
      section = ''
      continue
    }
    if (!current) {
      current = {path: options.source ?? '<unit>', kind: 'unit', firstInputLine: i + 1}
      unit.files.push(current)
      fileLine = 0
    }
    fileLine++
    const startFileLine = fileLine
    const startInputLine = i + 1
    const trimmed = raw.trim()
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue
    if (/^\[[^\]]+\]$/.test(trimmed)) {
      section = trimmed.slice(1, -1)
      sawContent = true
      continue
    }
    // Continuation: a trailing backslash joins the next line (with a space); comment lines inside are skipped.
    let logical = raw
    while (/\\$/.test(logical) && i + 1 < lines.length) {
      logical = logical.slice(0, -1) + ' '
      i++
      fileLine++
      const next = lines[i] ?? ''
      if (/^\s*[#;]/.test(next)) {
        logical += '\\'
        continue
      }
      logical += next
    }
    const eq = logical.indexOf('=')
    if (eq === -1) {
      unit.issues.push({severity: 'warning', code: 'unit-syntax', source: current.path, line: startFileLine, message: `line is not Key=value and is ignored by systemd: ${trimmed}`})
      continue
    }
    sawContent = true
    const key = logical.slice(0, eq).trim()
    const value = logical.slice(eq + 1).trim()
    const directive: UnitDirective = {file: current.path, line: startFileLine, inputLine: startInputLine, section, key, value}
    unit.directives.push(directive)
    if (section === 'Service') applyServiceDirective(unit, directive)
  }
  if (!sawContent) throw new ParseError('no systemd unit content found (expected `systemctl cat kubelet` output or a unit file)', 1)
  const type = [...unit.directives].reverse().find((d) => d.section === 'Service' && d.key === 'Type')?.value
  if (unit.execStart.length > 1 && type !== 'oneshot') {
    const second = unit.execStart[1]
    unit.issues.push({
      severity: 'error',
      code: 'multiple-execstart',
      ...(second?.origin.source === undefined ? {} : {source: second.origin.source}),
      ...(second?.origin.line === undefined ? {} : {line: second.origin.line}),
      message: `${unit.execStart.length} ExecStart= lines remain after resets; systemd refuses to start a non-oneshot service with more than one ("Service has more than one ExecStart= setting"). A drop-in that replaces the command must first reset it with an empty "ExecStart=" line.`,
    })
  }
  if (unit.execStart.length === 0 && unit.directives.some((d) => d.section === 'Service')) {
    unit.issues.push({severity: 'error', code: 'no-execstart', message: 'no ExecStart= remains after resets: the service has no command to run'})
  }
  return unit
}

function originOf(d: UnitDirective): Origin {
  return {kind: 'file', source: d.file, line: d.line}
}

function applyServiceDirective(unit: SystemdUnit, d: UnitDirective): void {
  switch (d.key) {
    case 'Environment': {
      if (d.value === '') {
        unit.environment = []
        return
      }
      for (const word of splitUnitWords(d.value).words) {
        const eq = word.indexOf('=')
        const name = eq === -1 ? '' : word.slice(0, eq)
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
          unit.issues.push({severity: 'warning', code: 'invalid-environment', source: d.file, line: d.line, message: `Environment= assignment ${JSON.stringify(word)} is invalid and ignored by systemd`})
          continue
        }
        unit.environment.push({name, value: word.slice(eq + 1), origin: originOf(d)})
      }
      return
    }
    case 'EnvironmentFile': {
      if (d.value === '') {
        unit.environmentFiles = []
        return
      }
      const optional = d.value.startsWith('-')
      unit.environmentFiles.push({path: optional ? d.value.slice(1) : d.value, optional, origin: originOf(d)})
      return
    }
    case 'ExecStart': {
      if (d.value === '') {
        unit.execStart = []
        return
      }
      const m = /^([-@:+!]*)(.*)$/s.exec(d.value)
      const prefix = m?.[1] ?? ''
      const split = splitUnitWords(m?.[2] ?? '')
      if (split.error) unit.issues.push({severity: 'error', code: 'unit-quoting', source: d.file, line: d.line, message: `ExecStart=: ${split.error}`})
      let words = split.words
      // "@" means the second word is argv[0]; the kubelet's flags start after it.
      if (prefix.includes('@') && words.length > 1) words = [words[0] ?? '', ...words.slice(2)]
      unit.execStart.push({raw: d.value, prefix, words, origin: originOf(d)})
      return
    }
    default:
      return
  }
}

/**
 * Splits a unit-file value into words: whitespace-separated, with "double" and 'single' quotes and C-style
 * backslash escapes removed (systemd extract_first_word with EXTRACT_UNQUOTE|EXTRACT_CUNESCAPE).
 */
export function splitUnitWords(value: string): {words: string[]; error?: string} {
  const words: string[] = []
  let i = 0
  const n = value.length
  while (i < n) {
    while (i < n && /\s/.test(value[i] ?? '')) i++
    if (i >= n) break
    let word = ''
    let quote: '"' | "'" | undefined
    while (i < n) {
      const c = value[i] ?? ''
      if (quote) {
        if (c === quote) {
          quote = undefined
          i++
          continue
        }
        if (c === '\\' && quote === '"' && i + 1 < n) {
          word += unescapeChar(value[i + 1] ?? '')
          i += 2
          continue
        }
        word += c
        i++
        continue
      }
      if (/\s/.test(c)) break
      if (c === '"' || c === "'") {
        quote = c
        i++
        continue
      }
      if (c === '\\' && i + 1 < n) {
        word += unescapeChar(value[i + 1] ?? '')
        i += 2
        continue
      }
      word += c
      i++
    }
    if (quote) return {words: [...words, word], error: `unterminated ${quote} quote`}
    words.push(word)
  }
  return {words}
}

function unescapeChar(c: string): string {
  switch (c) {
    case 'n':
      return '\n'
    case 't':
      return '\t'
    case 's':
      return ' '
    default:
      return c
  }
}

// ---------------------------------------------------------------------------------------------------------------
// EnvironmentFile=

export interface EnvironmentFile {
  vars: EnvVar[]
  issues: ConfigIssue[]
}

/**
 * Parses an EnvironmentFile= file (e.g. /var/lib/kubelet/kubeadm-flags.env, /etc/default/kubelet) as systemd
 * does: `KEY=value` lines, `#`/`;` comment lines, "double" (with escapes) or 'single' quoted values that may
 * span lines, backslash-newline continuation. Lines systemd ignores (no `=`, an invalid name such as
 * `export KEY`) are reported as warnings. Never throws.
 */
export function parseEnvironmentFile(text: string, options: {source?: string} = {}): EnvironmentFile {
  const out: EnvironmentFile = {vars: [], issues: []}
  const src = options.source === undefined ? {} : {source: options.source}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1
    const line = (lines[i] ?? '').replace(/^\s+/, '')
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const eq = line.indexOf('=')
    if (eq === -1) {
      out.issues.push({severity: 'warning', code: 'env-syntax', ...src, line: startLine, message: `no "=" on this line: systemd ignores it`})
      continue
    }
    const name = line.slice(0, eq).trim()
    let rest = line.slice(eq + 1).replace(/^\s+/, '')
    let value = ''
    let pos = 0
    let done = false
    while (!done) {
      const c = rest[pos]
      if (c === undefined) {
        done = true
        break
      }
      if (c === '"' || c === "'") {
        const quote = c
        pos++
        let closed = false
        while (!closed) {
          if (pos >= rest.length) {
            if (i + 1 >= lines.length) {
              out.issues.push({severity: 'warning', code: 'env-syntax', ...src, line: startLine, message: `unterminated ${quote} quote in ${name}`})
              done = true
              break
            }
            i++
            value += '\n'
            rest = rest + '\n' + (lines[i] ?? '')
            pos++
            continue
          }
          const ch = rest[pos] ?? ''
          if (ch === quote) {
            closed = true
            pos++
            break
          }
          if (quote === '"' && ch === '\\' && pos + 1 < rest.length) {
            const nx = rest[pos + 1] ?? ''
            if ('"\\`$'.includes(nx)) {
              value += nx
              pos += 2
              continue
            }
          }
          if (quote === '"' && ch === '\\' && pos + 1 >= rest.length && i + 1 < lines.length) {
            i++
            rest = rest.slice(0, pos) + (lines[i] ?? '')
            continue
          }
          value += ch
          pos++
        }
        continue
      }
      // Unquoted: up to end of line, trailing whitespace dropped, backslash escapes the next character.
      if (c === '\\') {
        if (pos + 1 >= rest.length) {
          if (i + 1 < lines.length) {
            i++
            rest = rest.slice(0, pos) + (lines[i] ?? '')
            continue
          }
          pos++
          continue
        }
        value += rest[pos + 1] ?? ''
        pos += 2
        continue
      }
      value += c
      pos++
      if (pos >= rest.length) value = value.replace(/\s+$/, '')
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      const hint = name.startsWith('export ') ? ' (systemd does not understand "export"; remove it)' : ''
      out.issues.push({severity: 'warning', code: 'invalid-environment', ...src, line: startLine, message: `${JSON.stringify(name)} is not a valid variable name: systemd ignores this line${hint}`})
      continue
    }
    out.vars.push({name, value, origin: {kind: 'file', ...src, line: startLine}})
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Expansion

/** One word of the effective command line and where it came from. */
export interface CommandWord {
  text: string
  origin: Origin
  /** The variable it was expanded from (`$KUBELET_KUBEADM_ARGS`), if any. */
  via?: string
}

export interface ResolvedCommand {
  /** The executable (first word). */
  executable?: string
  /** The arguments after the executable, with origins. */
  args: CommandWord[]
  /** The effective environment used for expansion: unit Environment= first, then EnvironmentFile= (which win). */
  environment: Record<string, EnvVar>
  issues: ConfigIssue[]
}

/**
 * The effective ExecStart= of `unit` with variables expanded. `envFiles` supplies the contents of
 * EnvironmentFile= paths: matched by exact path first, then by file name. Values from environment files override
 * Environment= (systemd.exec(5)); later files override earlier ones. A word that is exactly `$VAR` is split at
 * whitespace (zero or more words); `${VAR}` is replaced in place and stays one word.
 */
export function resolveExecStart(unit: SystemdUnit, envFiles: ReadonlyArray<{path: string; text: string}>): ResolvedCommand {
  const issues: ConfigIssue[] = []
  // Null prototype: variable names come from the input (`$constructor`, `__proto__=`).
  const env: Record<string, EnvVar> = Object.create(null) as Record<string, EnvVar>
  for (const v of unit.environment) env[v.name] = v
  const used = new Set<number>()
  for (const ref of unit.environmentFiles) {
    let idx = envFiles.findIndex((f, i) => !used.has(i) && f.path === ref.path)
    if (idx === -1) idx = envFiles.findIndex((f, i) => !used.has(i) && basename(f.path) === basename(ref.path))
    const file = envFiles[idx]
    if (!file) {
      issues.push({
        severity: ref.optional ? 'info' : 'warning',
        code: 'environment-file-missing',
        ...(ref.origin.source === undefined ? {} : {source: ref.origin.source}),
        ...(ref.origin.line === undefined ? {} : {line: ref.origin.line}),
        message: `EnvironmentFile=${ref.optional ? '-' : ''}${ref.path} was not provided; variables it sets are treated as empty${ref.optional ? '' : ' (systemd fails the start if it is really missing)'}`,
      })
      continue
    }
    used.add(idx)
    const parsed = parseEnvironmentFile(file.text, {source: file.path})
    issues.push(...parsed.issues)
    for (const v of parsed.vars) env[v.name] = v
  }
  const exec = unit.execStart.at(-1)
  if (!exec) return {args: [], environment: env, issues}
  const words: CommandWord[] = []
  for (const w of exec.words) {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(w)
    if (whole) {
      const name = whole[1] ?? ''
      const v = env[name]
      if (!v) {
        issues.push({
          severity: 'info',
          code: 'unset-variable',
          ...(exec.origin.source === undefined ? {} : {source: exec.origin.source}),
          ...(exec.origin.line === undefined ? {} : {line: exec.origin.line}),
          message: `$${name} is not set; it expands to nothing`,
        })
        continue
      }
      for (const part of splitUnitWords(v.value).words) words.push({text: part, origin: v.origin, via: `$${name}`})
      continue
    }
    let via: string | undefined
    let origin = exec.origin
    const text = w.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const v = env[name]
      via = `\${${name}}`
      if (v) origin = v.origin
      return v?.value ?? ''
    })
    const cw: CommandWord = {text, origin}
    if (via !== undefined) cw.via = via
    words.push(cw)
  }
  const [first, ...rest] = words
  const out: ResolvedCommand = {args: rest, environment: env, issues}
  if (first) out.executable = first.text
  return out
}

function basename(p: string): string {
  return p.split('/').at(-1) ?? p
}
