// Rule-line tokenising and quoting, byte-compatible with iptables 1.8 (iptables-restore's add_param_to_argv and
// libxtables' xtables_save_string), checked against the real binaries in test/integration/iptables.
import {ParseError} from '../../errors.js'

const SPACE = 32
const TAB = 9
const LF = 10
const QUOTE = 34
const BACKSLASH = 92

/**
 * Splits one rule line into arguments the way iptables-restore does: blanks separate arguments; `"` starts a
 * quoted part in which `\x` stands for `x`; a closing `"` ends the argument (so `""` is an empty argument and
 * `"ab"cd` is two). Outside quotes a backslash is literal. Throws ParseError on an unterminated quote, which
 * iptables-save never prints (iptables-restore would silently swallow the rest of the line).
 */
export function tokenizeRule(text: string): string[] {
  const out: string[] = []
  const n = text.length
  let i = 0
  // Words before the next quote are split plainly; a word glued to the quote is the start of the quoted argument.
  for (;;) {
    const q = text.indexOf('"', i)
    const segEnd = q === -1 ? n : q
    let prefix = ''
    if (segEnd > i) {
      const c = text.charCodeAt(segEnd - 1)
      const glued = q !== -1 && c !== SPACE && c !== TAB && c !== LF
      let wordsEnd = segEnd
      if (glued) {
        let k = segEnd - 1
        while (k > i) {
          const d = text.charCodeAt(k - 1)
          if (d === SPACE || d === TAB || d === LF) break
          k--
        }
        prefix = text.slice(k, segEnd)
        wordsEnd = k
      }
      splitWords(text, i, wordsEnd, out)
    }
    if (q === -1) return out
    // Quoted part: up to the next unescaped `"`.
    let close = text.indexOf('"', q + 1)
    const bs = text.indexOf('\\', q + 1)
    if (close !== -1 && (bs === -1 || bs > close)) {
      out.push(prefix + text.slice(q + 1, close))
    } else {
      let part = ''
      let runStart = q + 1
      let j = q + 1
      for (;;) {
        if (j >= n) throw new ParseError('unterminated double quote in rule')
        const c = text.charCodeAt(j)
        if (c === QUOTE) break
        if (c === BACKSLASH) {
          if (j + 1 >= n) throw new ParseError('unterminated double quote in rule (line ends in a backslash)')
          part += text.slice(runStart, j)
          runStart = j + 1
          j += 2
          continue
        }
        j++
      }
      close = j
      out.push(prefix + part + text.slice(runStart, close))
    }
    i = close + 1
  }
}

/** Pushes the blank-separated words of text[from, to). */
function splitWords(text: string, from: number, to: number, out: string[]): void {
  let i = from
  while (i < to) {
    let c = text.charCodeAt(i)
    while (i < to && (c === SPACE || c === TAB || c === LF)) c = text.charCodeAt(++i)
    if (i >= to) return
    const start = i
    while (i < to && c !== SPACE && c !== TAB && c !== LF) c = text.charCodeAt(++i)
    out.push(text.slice(start, i))
  }
}

const BARE = /^[A-Za-z0-9_-]+$/

/**
 * Quotes a string argument exactly as iptables-save does (xtables_save_string): bare when it consists only of
 * `[A-Za-z0-9_-]`, otherwise in double quotes with `"`, `\` and `'` backslash-escaped. `""` for the empty string.
 */
export function quoteArg(arg: string): string {
  if (BARE.test(arg)) return arg
  return '"' + arg.replace(/["\\']/g, '\\$&') + '"'
}

/** Options whose value iptables-save prints through xtables_save_string (so it is quoted when not bare). */
const STRING_OPTIONS = new Set(['--comment', '--nfacct-name', '--log-prefix', '--nflog-prefix', '--helper'])

/**
 * Joins rule arguments into a line as iptables-save prints them: string-valued options (`--comment`,
 * `--nfacct-name`, `--log-prefix`, ...) are quoted with quoteArg, and `--nfacct-name` is followed by two spaces
 * (libxt_nfacct prints a trailing blank before the string printer adds its own). Any other argument is printed
 * bare unless it could not survive tokenizeRule (blank, quote or empty), so tokenizeRule(formatRuleTokens(t))
 * always equals t.
 */
export function formatRuleTokens(tokens: readonly string[]): string {
  let out = ''
  const n = tokens.length
  for (let i = 0; i < n; i++) {
    const t = tokens[i] as string
    if (i > 0) out += ' '
    if (STRING_OPTIONS.has(t) && i + 1 < n) {
      out += t + (t === '--nfacct-name' ? '  ' : ' ') + quoteArg(tokens[i + 1] as string)
      i++
      continue
    }
    out += needsQuoting(t) ? quoteArg(t) : t
  }
  return out
}

function needsQuoting(t: string): boolean {
  if (t.length === 0) return true
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c === SPACE || c === TAB || c === LF || c === QUOTE || c === 13) return true
  }
  return false
}
