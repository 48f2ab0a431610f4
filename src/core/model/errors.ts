// Core's own error for input the user can fix (an unknown node, an unsupported version). Core knows nothing of
// exit codes or of the CLI: the command layer turns an InputProblem into a usage error (exit 2, message and hint
// printed as they are). Parsers keep throwing ParseError (src/errors.ts), which callers wrap with the file name.

export class InputProblem extends Error {
  /** What the user can do next, printed under the message. */
  readonly hint: string | undefined

  constructor(message: string, hint?: string) {
    super(message)
    this.name = 'InputProblem'
    this.hint = hint
  }
}
