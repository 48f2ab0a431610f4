// Reading OpenSSH client config files into lines node-doctor can walk: Host and Match sections with their
// directives, Include arguments, and each directive's values. The `ssh-config` package splits the text into
// directives and values; Match lines and ProxyCommand values are taken from the raw text instead (the library
// rejects `Match !all` and drops ProxyCommand quoting), so they reach it as placeholders and are put back here.
// Resolution (which values apply to a host, tokens, defaults) is ssh-config.ts; nothing here evaluates anything.
import {readdirSync, readFileSync} from 'node:fs'
import {basename, dirname, isAbsolute, join} from 'node:path'
import {type Line, parse} from 'ssh-config'
import {UsageError} from '../../errors.js'
import {matchPattern} from './known-hosts.js'

/** One line of a config file that means something (comments and blank lines are dropped). */
export type ConfigLine =
  /** `Host PATTERN...` and the directives up to the next Host or Match. */
  | {kind: 'host'; patterns: string[]; body: ConfigLine[]}
  /** `Match ...` as written (criteria unparsed) and its directives. */
  | {kind: 'match'; raw: string; body: ConfigLine[]}
  | {kind: 'include'; args: string[]}
  /** Any other directive: lower-case key; ProxyCommand's one value is its text as written. */
  | {kind: 'directive'; key: string; values: string[]}

export interface ConfigFile {
  path: string
  lines: ConfigLine[]
}

const RAW_LINE = /^(\s*)(match|proxycommand)(?:\s*=\s*|\s+)(.*?)\s*$/i
const RAW_PLACEHOLDER = /^__node_doctor_raw_(\d+)__$/

/**
 * Parses one config file. Match and ProxyCommand lines reach the library as placeholders (`Match host
 * __node_doctor_raw_N__`, `ProxyCommand __node_doctor_raw_N__`) and their text is kept as written.
 */
export function parseConfigText(text: string, path: string): ConfigFile {
  const raws: string[] = []
  const prepared = text
    .split('\n')
    .map((line) => {
      const m = RAW_LINE.exec(line)
      if (!m) return line
      raws.push(m[3]!)
      const placeholder = `__node_doctor_raw_${raws.length - 1}__`
      return m[2]!.toLowerCase() === 'match' ? `${m[1]}Match host ${placeholder}` : `${m[1]}ProxyCommand ${placeholder}`
    })
    .join('\n')
  let parsed: Line[]
  try {
    parsed = [...parse(prepared)]
  } catch (err) {
    throw new UsageError(`cannot parse ssh config ${path}: ${(err as Error).message}`)
  }
  const rawOf = (value: unknown): string => {
    const list = valueList(value as string | ReadonlyArray<{val: string}>)
    const m = RAW_PLACEHOLDER.exec(list.at(-1) ?? '')
    return m ? (raws[Number(m[1])] ?? '') : list.join(' ')
  }
  const convert = (lines: readonly Line[]): ConfigLine[] => {
    const out: ConfigLine[] = []
    for (const line of lines) {
      if (line.type !== 1) continue
      const key = line.param.toLowerCase()
      if (key === 'host' || key === 'match') {
        const body = convert((line as Line & {config: Line[]}).config)
        out.push(key === 'match' ? {kind: 'match', raw: rawOf(line.value), body} : {kind: 'host', patterns: valueList(line.value), body})
      } else if (key === 'include') out.push({kind: 'include', args: valueList(line.value)})
      else out.push({kind: 'directive', key, values: key === 'proxycommand' ? [rawOf(line.value)] : valueList(line.value)})
    }
    return out
  }
  return {path, lines: convert(parsed)}
}

/** The file parsed, or undefined when it cannot be read (an Include of a missing file is no error in ssh(1)). */
export function readConfigFile(path: string): ConfigFile | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  return parseConfigText(text, path)
}

/** The parser already splits multi-valued directives (Host, UserKnownHostsFile, Include) into arrays. */
function valueList(value: string | ReadonlyArray<{val: string}>): string[] {
  return typeof value === 'string' ? [value] : value.map((v) => v.val)
}

/** Include arguments: relative to ~/.ssh, with `*`/`?` allowed in the file name; sorted like glob(3). */
export function expandInclude(args: readonly string[], home: string): string[] {
  const out: string[] = []
  for (const a of args) {
    let p = a.startsWith('~/') ? join(home, a.slice(2)) : a
    if (!isAbsolute(p)) p = join(home, '.ssh', p)
    const base = basename(p)
    if (!/[*?]/.test(base)) {
      out.push(p)
      continue
    }
    let names: string[]
    try {
      names = readdirSync(dirname(p))
    } catch {
      continue
    }
    out.push(...names.filter((n) => !n.startsWith('.') && matchPattern(n, base)).sort().map((n) => join(dirname(p), n)))
  }
  return out
}
