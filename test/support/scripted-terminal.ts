// A terminal for the prompt helpers (src/cli/confirm.ts) that a test scripts: stdin and stderr claim to be TTYs, and
// each answer is typed only when a prompt (text ending in `] `) appears on stderr, as a person would (err() shows it). Typing all the
// answers at once would not model a terminal: one readline may buffer lines meant for the next question.
import {PassThrough} from 'node:stream'
import type {ConfirmIO} from '../../src/cli/confirm.js'

export function scriptedTerminal(answers: readonly string[]): ConfirmIO & {out: () => string; err: () => string; prompts: () => number} {
  const queue = [...answers]
  const stdin = Object.assign(new PassThrough(), {isTTY: true})
  const stdout = new PassThrough()
  const stderr = Object.assign(new PassThrough(), {isTTY: true})
  let out = ''
  let err = ''
  let prompts = 0
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => {
    err += d.toString()
    if (!d.toString().endsWith('] ')) return
    prompts++
    const next = queue.shift()
    // The transcript shows what was typed, as the terminal's echo would.
    err += next === undefined ? '\n' : `${next}\n`
    // End of input (Ctrl-D) when the script has no answer left.
    setImmediate(() => (next === undefined ? stdin.end() : stdin.write(`${next}\n`)))
  })
  return {stdin, stdout, stderr, out: () => out, err: () => err, prompts: () => prompts}
}
