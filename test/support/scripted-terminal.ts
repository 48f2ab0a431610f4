// A terminal for the prompt helpers (src/cli/confirm.ts) that a test scripts: stdin and stderr claim to be TTYs, and
// each answer is typed only when a prompt (text ending in `] `) appears on stderr, as a person would. Typing all the
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
    // End of input (Ctrl-D) when the script has no answer left.
    setImmediate(() => (next === undefined ? stdin.end() : stdin.write(`${next}\n`)))
  })
  return {stdin, stdout, stderr, out: () => out, err: () => err, prompts: () => prompts}
}
