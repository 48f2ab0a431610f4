// Parse errors of a named input file, as the CLI reports them: file:line and the parser's message (exit 2).
import {InputError, ParseError} from '../errors.js'

/** Runs `fn` (a parser over the text of input file `name`), turning its ParseError into an InputError naming the file. */
export function parsingFile<T>(name: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof ParseError) throw new InputError(name, err.message, err.line)
    throw err
  }
}
