// What people paste is not what the tool printed: a listing copied into a ticket or an e-mail comes with CRLF line
// ends, a common indentation (Markdown code block, list item) or `> ` quoting, the `$ iptables-save` line it was
// typed after, a prompt after it and Markdown fences around it. normalisePasted undoes exactly that, by content,
// keeps a map back to the user's line numbers, and says what it changed. Pure; the offline (`show --from-file`)
// views run it before their parser; machine-collected artifacts (collect, check) never go through it.
import {ParseError} from '../../errors.js'

/** Something the reader assumed or skipped, at a line of the user's input (1-based). */
export interface PastedWarning {
  line: number
  message: string
}

export interface Normalised {
  /** The text with the changes undone; ends in a newline when the input did. */
  text: string
  /** lineOf[i] is the user's line number of line i+1 of `text`. */
  lineOf: number[]
  warnings: PastedWarning[]
}

/** Commands a `# ` (root) prompt may run; a `#` line with another first word is a comment of the listing itself. */
const ROOT_PROMPT_COMMANDS = /^(sudo|iptables|ip6tables|iptables-save|ip6tables-save|iptables-legacy-save|iptables-nft-save|ipvsadm|ip|route|nft|cat|kubectl|ssh|netstat|conntrack|ipset|crictl|journalctl|systemctl|grep)\b/

/** A shell prompt line, with or without a command after it; returns the command ('' for a bare prompt) or null. */
export function promptCommand(line: string): string | null {
  const l = line.trim()
  // user@host:~$ cmd, user@host:/dir# cmd, [user@host ~]# cmd
  const full = /^(?:\S+@[\w.-]+(?::\S*)?|\[\S+@[\w.-]+[^\]]*\])\s*[#$%]\s*(.*)$/.exec(l)
  if (full) return full[1] ?? ''
  const dollar = /^\$(?:\s+(.*))?$/.exec(l)
  if (dollar) return dollar[1] ?? ''
  const hash = /^#\s+(.*)$/.exec(l)
  if (hash && ROOT_PROMPT_COMMANDS.test(hash[1] ?? '')) return hash[1] ?? ''
  return null
}

const FENCE = /^\s*(```|~~~)[\w+-]*\s*$/

/** Undoes CRLF, `> ` quoting, leading/trailing prompts and fences, and a common indentation. See the file comment. */
export function normalisePasted(input: string): Normalised {
  const warnings: PastedWarning[] = []
  const crlf = input.includes('\r\n')
  const text = crlf ? input.replace(/\r+\n/g, '\n') : input
  if (crlf) warnings.push({line: 1, message: 'CRLF line ends read as LF'})
  const endsInNewline = text.endsWith('\n')
  let lines = (endsInNewline ? text.slice(0, -1) : text).split('\n')
  let lineOf = lines.map((_, i) => i + 1)
  const blank = (s: string): boolean => s.trim() === ''

  // e-mail quoting, possibly nested: every non-blank line starts with `>`
  for (let depth = 0; depth < 8; depth++) {
    const content = lines.filter((l) => !blank(l))
    if (content.length === 0 || !content.every((l) => /^\s*>/.test(l))) break
    lines = lines.map((l) => l.replace(/^\s*> ?/, ''))
    warnings.push({line: lineOf[0] ?? 1, message: `e-mail quoting "> " removed from ${content.length} lines`})
  }

  // fences and prompt lines at both ends (blank lines between them go too)
  const dropEdge = (i: number): boolean => {
    const l = lines[i] as string
    if (blank(l)) return false
    if (FENCE.test(l)) {
      warnings.push({line: lineOf[i] as number, message: `Markdown fence ${l.trim()} skipped`})
      return true
    }
    const cmd = promptCommand(l)
    if (cmd !== null) {
      warnings.push({line: lineOf[i] as number, message: `shell prompt \`${l.trim()}\` skipped`})
      return true
    }
    return false
  }
  let start = 0
  for (let i = 0; i < lines.length; i++) {
    if (blank(lines[i] as string)) continue
    if (!dropEdge(i)) break
    start = i + 1
  }
  let end = lines.length
  for (let i = lines.length - 1; i >= start; i--) {
    if (blank(lines[i] as string)) continue
    if (!dropEdge(i)) break
    end = i
  }
  if (start > 0 || end < lines.length) {
    // blank lines that only separated the listing from what was skipped go too
    let s = start
    let e = end
    if (start > 0) while (s < e && blank(lines[s] as string)) s++
    if (end < lines.length) while (e > s && blank(lines[e - 1] as string)) e--
    lines = lines.slice(s, e)
    lineOf = lineOf.slice(s, e)
  }

  // common indentation of the non-blank lines
  const content = lines.filter((l) => !blank(l))
  if (content.length > 0) {
    let prefix = /^[ \t]*/.exec(content[0] as string)?.[0] ?? ''
    for (const l of content) {
      let k = 0
      while (k < prefix.length && l.charCodeAt(k) === prefix.charCodeAt(k)) k++
      prefix = prefix.slice(0, k)
      if (prefix === '') break
    }
    if (prefix !== '') {
      lines = lines.map((l) => (l.startsWith(prefix) ? l.slice(prefix.length) : blank(l) ? '' : l))
      warnings.push({line: lineOf[0] ?? 1, message: `common indentation of ${describeIndent(prefix)} removed`})
    }
  }
  const out = lines.join('\n') + (endsInNewline && lines.length > 0 ? '\n' : '')
  return {text: out, lineOf, warnings}
}

function describeIndent(prefix: string): string {
  const tabs = [...prefix].filter((c) => c === '\t').length
  const spaces = prefix.length - tabs
  const part = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`
  if (tabs === 0) return part(spaces, 'space')
  if (spaces === 0) return part(tabs, 'tab')
  return `${part(spaces, 'space')} and ${part(tabs, 'tab')}`
}

/** The user's line number of line `n` (1-based) of the normalised text; lines past the end map to the last one. */
export function originalLine(lineOf: readonly number[], n: number): number {
  if (lineOf.length === 0) return n
  return lineOf[Math.min(Math.max(n, 1), lineOf.length) - 1] as number
}

/**
 * A strict parser behind the generic pasted-input step: the text normalised first, a parse error's line mapped back
 * to the user's line. Returns the value and what normalisePasted changed.
 */
export function parsePasted<T>(text: string, parse: (text: string) => T): {value: T; warnings: PastedWarning[]} {
  const norm = normalisePasted(text)
  try {
    return {value: parse(norm.text), warnings: norm.warnings}
  } catch (err) {
    if (err instanceof ParseError && err.line !== undefined) throw new ParseError(err.message, originalLine(norm.lineOf, err.line))
    throw err
  }
}
