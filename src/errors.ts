// Error taxonomy. Expected problems the user can fix are NodeDoctorErrors with an exit code and a next step;
// anything else reaching the top is a bug. Findings are never errors: they travel in the Report.
import {ExitCode} from './exit-codes.js'

export class NodeDoctorError extends Error {
  readonly exitCode: number
  /** What the user can do next, printed under the message. */
  readonly hint?: string

  constructor(message: string, options: {exitCode: number; hint?: string; cause?: unknown}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = new.target.name
    this.exitCode = options.exitCode
    if (options.hint !== undefined) this.hint = options.hint
  }
}

/** Bad flags, a missing or malformed kubeconfig, an unknown context, an unreadable input file. Exit 2. */
export class UsageError extends NodeDoctorError {
  constructor(message: string, hint?: string, cause?: unknown) {
    super(message, {exitCode: ExitCode.USAGE, hint, cause})
  }
}

/**
 * A file that could not be parsed. Names the file, the line (1-based, when known) and what was expected.
 * Exit 2 (it is the user's input).
 */
export class InputError extends UsageError {
  readonly file: string
  readonly line?: number

  constructor(file: string, detail: string, line?: number, hint?: string) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${detail}`, hint)
    this.file = file
    if (line !== undefined) this.line = line
  }
}

/** The cluster could not be reached or refused us (unreachable server, 401, 403 on a required read). Exit 4. */
export class AccessError extends NodeDoctorError {
  constructor(message: string, hint?: string, cause?: unknown) {
    super(message, {exitCode: ExitCode.ACCESS, hint, cause})
  }
}

/** An invariant was broken: a bug in node-doctor, never the user's fault. Exit 5. */
export class BugError extends NodeDoctorError {
  constructor(message: string, cause?: unknown) {
    super(message, {
      exitCode: ExitCode.INTERNAL,
      hint: 'This is a bug in node-doctor; please report it with the command you ran.',
      cause,
    })
  }
}

/**
 * A parser's error, usually before it knows the file name: the caller wraps it into an InputError. A parser that
 * reads several files (drop-ins) names the one at fault in `file`.
 */
export class ParseError extends Error {
  readonly line?: number
  readonly file?: string

  constructor(detail: string, line?: number, file?: string) {
    super(detail)
    this.name = 'ParseError'
    if (line !== undefined) this.line = line
    if (file !== undefined) this.file = file
  }
}

/** Turns a ParseError into an InputError naming `file` (or the file the parser named); other errors pass through. */
export function inFile(file: string, err: unknown): unknown {
  if (err instanceof ParseError) return new InputError(err.file ?? file, err.message, err.line)
  return err
}
