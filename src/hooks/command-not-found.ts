// oclif's `command_not_found` hook: a mistyped command gets kubectl's answer, an error naming what was typed and the
// commands it is closest to ("Did you mean this?"), exit 2 (usage). Registered in package.json `oclif.hooks`.
// oclif has already folded the words before the first flag into the id (`chek worker-1` -> `chek:worker-1`), so
// every leading run of words is tried as the command and the rest kept as its arguments.
import type {Hook} from '@oclif/core'
import {ExitCode} from '../exit-codes.js'

/** Close enough to suggest: cobra's rule (kubectl's), edit distance at most 2, or the typed text starts the command. */
const MAX_DISTANCE = 2

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions, so `versoin` is 1 from `version`).
 * Two rows of the table plus the one before them: linear memory, quadratic time on the short strings given.
 */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0)
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      row.push(d)
    }
    before = prev
    prev = row
  }
  return prev[b.length]!
}

/**
 * The commands `typed` (its words) may have meant, closest first, each with the words after it kept:
 * `['chek', 'worker-1']` -> `['check worker-1', 'checks worker-1']`.
 */
export function suggestCommands(typed: readonly string[], commandIds: readonly string[]): string[] {
  const scored: Array<{line: string; distance: number}> = []
  const commands = commandIds.map((id) => id.split(/[: ]/))
  for (let n = 1; n <= typed.length; n++) {
    const head = typed.slice(0, n).join(' ').toLowerCase()
    const rest = typed.slice(n)
    for (const words of commands.filter((w) => w.length === n)) {
      const id = words.join(' ')
      const distance = editDistance(head, id)
      // Distance 0 is a topic typed right (`kubelet shwo`): the mistake is further on, a longer id will say it.
      if (distance > 0 && (distance <= MAX_DISTANCE || id.startsWith(head))) scored.push({line: [id, ...rest].join(' '), distance})
    }
  }
  scored.sort((x, y) => x.distance - y.distance || (x.line < y.line ? -1 : x.line > y.line ? 1 : 0))
  return [...new Set(scored.map((s) => s.line))].slice(0, 3)
}

const hook: Hook<'command_not_found'> = async function (options) {
  const typed = options.id.split(':').filter((w) => w !== '')
  // Topics too (`proxi` -> `proxy`, whose help lists its commands).
  const ids = [...options.config.commands.filter((c) => !c.hidden).map((c) => c.id), ...options.config.topics.filter((t) => !t.hidden).map((t) => t.name)]
  const bin = options.config.bin // `kubectl node-doctor` (package.json oclif.bin)
  // A flag where the command should be (`kubectl node-doctor --frobnicate`): oclif found no id at all.
  if (typed[0]?.startsWith('-')) {
    process.stderr.write(`error: unknown flag "${typed[0]}" for "${bin}"\n\nRun '${bin} --help' for the commands and '${bin} COMMAND --help' for their flags.\n`)
    process.exitCode = ExitCode.USAGE
    return
  }
  const close = suggestCommands(typed, ids)
  const lines = [`error: unknown command "${typed.join(' ')}" for "${bin}"`]
  if (close.length > 0) lines.push('', `Did you mean ${close.length === 1 ? 'this' : 'one of these'}?`, ...close.map((c) => `  ${bin} ${c}`))
  lines.push('', `Run '${bin} --help' for the commands.`)
  process.stderr.write(lines.join('\n') + '\n')
  process.exitCode = ExitCode.USAGE
}

export default hook
