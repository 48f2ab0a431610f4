// The plan/confirm step every `fix` command goes through before it changes anything:
//   print the plan (stdout) → --dry-run: stop here, exit 0 → --yes: go → a terminal: ask → no terminal: refuse.
// Asking needs stdin and stderr to be terminals (the question goes to stderr so stdout stays the plan); without
// one, and without --yes, nothing is changed and the command fails with a UsageError naming --yes.
import {createInterface} from 'node:readline'
import {UsageError} from '../errors.js'

export interface ConfirmFlags {
  'dry-run'?: boolean
  yes?: boolean
}

/** The streams the flow uses; process streams by default, injectable for tests. */
export interface ConfirmIO {
  stdin: NodeJS.ReadableStream & {isTTY?: boolean}
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream & {isTTY?: boolean}
}

/** `apply`: go ahead; `dry-run`: the plan was printed and nothing may change; `declined`: the user said no. */
export type ConfirmDecision = 'apply' | 'dry-run' | 'declined'

export interface ConfirmOptions {
  /** A yes/no question without the question mark, e.g. `Apply this change to node worker-1`. */
  question: string
  io?: ConfirmIO
}

const processIO = (): ConfirmIO => ({stdin: process.stdin, stdout: process.stdout, stderr: process.stderr})

/**
 * Prints `plan` and decides whether to apply it. Throws UsageError when confirmation is needed but there is no
 * terminal to ask on. Only an answer of `y`/`yes` (any case) applies; anything else, or end of input, declines.
 */
export async function confirmPlan(plan: string, flags: ConfirmFlags, options: ConfirmOptions): Promise<ConfirmDecision> {
  const io = options.io ?? processIO()
  io.stdout.write(plan.endsWith('\n') ? plan : `${plan}\n`)
  if (flags['dry-run']) {
    io.stderr.write('Dry run: nothing was changed.\n')
    return 'dry-run'
  }
  if (flags.yes) return 'apply'
  if (!io.stdin.isTTY || !io.stderr.isTTY) {
    throw new UsageError(
      `refusing to go on without confirmation (${options.question.charAt(0).toLowerCase()}${options.question.slice(1)}?): no terminal to ask on, nothing was changed`,
      'Pass --yes to apply without asking, or --dry-run to only print the plan.',
    )
  }
  const answer = await ask(io, `${options.question}? [y/N] `)
  if (/^\s*y(es)?\s*$/i.test(answer ?? '')) return 'apply'
  io.stderr.write('Not confirmed: nothing was changed.\n')
  return 'declined'
}

/** Whether questions can be asked: stdin and stderr are terminals. */
export function canAsk(io: ConfirmIO = processIO()): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY)
}

/**
 * Asks `question` on stderr with named answers (`[apply/keep/abort]`) and reads one from stdin: a whole answer or
 * an unambiguous start of one (`k`, `ap`), any case. Anything else asks again, three times at most; then, or at end
 * of input, undefined. The caller checks canAsk() first.
 */
export async function askChoice<C extends string>(question: string, choices: readonly C[], io: ConfirmIO = processIO()): Promise<C | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = await ask(io, `${question} [${choices.join('/')}] `)
    if (answer === undefined) return undefined
    const a = answer.trim().toLowerCase()
    const matches = a === '' ? [] : choices.filter((c) => c.toLowerCase().startsWith(a))
    const exact = choices.find((c) => c.toLowerCase() === a)
    if (exact !== undefined) return exact
    if (matches.length === 1) return matches[0]
    io.stderr.write(`Answer ${choices.slice(0, -1).join(', ')} or ${choices.at(-1) ?? ''}${matches.length > 1 ? ` (${JSON.stringify(a)} could be ${matches.join(' or ')})` : ''}.\n`)
  }
  return undefined
}

/** One line from stdin after printing `prompt` on stderr; undefined at end of input. */
function ask(io: ConfirmIO, prompt: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({input: io.stdin, output: io.stderr, terminal: false})
    let answered = false
    rl.once('line', (line) => {
      answered = true
      rl.close()
      resolve(line)
    })
    rl.once('close', () => {
      if (!answered) resolve(undefined)
    })
    io.stderr.write(prompt)
  })
}

/** Whether -o names a machine format (json, yaml, ...): then the plan goes to stderr, keeping stdout parseable. */
export function machineOutput(format: string): boolean {
  return format !== 'table' && format !== 'wide'
}

/** The confirm step of a `fix` command with the plan on the right stream. */
export function confirmer(flags: ConfirmFlags & {output: string}, question: string): (plan: string) => ReturnType<typeof confirmPlan> {
  return (plan) =>
    confirmPlan(plan, flags, {
      question,
      io: {stdin: process.stdin, stdout: machineOutput(flags.output) ? process.stderr : process.stdout, stderr: process.stderr},
    })
}
