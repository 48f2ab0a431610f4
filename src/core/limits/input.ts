// Bounds for input files given on the command line (--from-file, -f, --objects, ...), applied by the input
// reader: size (NODE_DOCTOR_MAX_INPUT_FILE_BYTES) and nesting depth (NODE_DOCTOR_MAX_DOCUMENT_DEPTH) before any
// parser runs, and a parser that still runs out of stack turned into an input error (exit 2) instead of exit 5.
import {ParseError} from '../../errors.js'
import {jsonDepthExceeds, yamlDepthExceeds} from './json.js'
import {limitMessage, limits} from './limits.js'

/** The file's text when it is within the limits; otherwise a ParseError naming the file and the limit (inFile makes it an InputError). */
export function checkedInputText(file: string, buf: Buffer): string {
  const lim = limits()
  if (buf.length > lim.inputFileBytes) throw new ParseError(limitMessage(`the file (${buf.length} bytes)`, 'inputFileBytes', lim.inputFileBytes), undefined, file)
  const text = buf.toString('utf8')
  const trimmed = text.trimStart()
  const deep = trimmed.startsWith('{') || trimmed.startsWith('[') ? jsonDepthExceeds(text, lim.documentDepth) : looksLikeYaml(text) && yamlDepthExceeds(text, lim.documentDepth)
  if (deep) throw new ParseError(`the document is nested more than ${lim.documentDepth} levels deep (NODE_DOCTOR_MAX_DOCUMENT_DEPTH)`, undefined, file)
  return text
}

/** YAML (and JSON inside YAML) input: kubelet configs, objects. Dumps (iptables, routes, ipvsadm) are line formats. */
function looksLikeYaml(text: string): boolean {
  return /^(?:---|apiVersion:|kind:|[A-Za-z][A-Za-z0-9]*:)/m.test(text.slice(0, 4096))
}

/** A parser's failure as the user should see it: a stack overflow on a huge or deep input is an input error. */
export function inputFailure(file: string, err: unknown): unknown {
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new ParseError('the input is too large or too deeply nested to read (the parser ran out of stack)', undefined, file)
  }
  return err
}
