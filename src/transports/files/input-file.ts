// Reading user-supplied input files for offline commands. Errors name the file and say what was wrong.
import {readFileSync, statSync} from 'node:fs'
import {checkedInputText} from '../../core/limits/input.js'
import {InputError, inFile, UsageError} from '../../errors.js'

/** Reads a text input file ('-' = stdin). Refuses directories, unreadable files and binary content. */
export function readInputFile(path: string): string {
  let buf: Buffer
  try {
    if (path === '-') buf = readFileSync(0)
    else {
      const st = statSync(path)
      if (st.isDirectory()) throw new UsageError(`${path} is a directory, expected a file`)
      buf = readFileSync(path)
    }
  } catch (err) {
    if (err instanceof UsageError) throw err
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ENOENT') throw new UsageError(`input file ${path} does not exist`)
    if (e.code === 'EACCES') throw new UsageError(`input file ${path} is not readable (permission denied)`)
    throw new UsageError(`cannot read input file ${path}: ${e.message}`)
  }
  const nul = buf.indexOf(0)
  if (nul !== -1) {
    const line = buf.subarray(0, nul).toString('latin1').split('\n').length
    throw new InputError(path === '-' ? '<stdin>' : path, 'binary data (NUL byte) found: this is not a text dump', line)
  }
  const name = path === '-' ? '<stdin>' : path
  try {
    return checkedInputText(name, buf)
  } catch (err) {
    throw inFile(name, err)
  }
}
