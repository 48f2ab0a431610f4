// The one sanitiser for terminal output. Node files, ConfigMaps, Service names, kernel versions and command
// output are attacker-controlled text: an ESC or C1 byte in them must never reach the terminal as a control
// sequence (OSC 52 writes the clipboard, OSC 8 forges links, CSI 6n/21t make the terminal type into our stdin,
// cursor moves rewrite what a report says). Applied at the output boundary: installTerminalGuard() wraps
// process.stdout.write and process.stderr.write once per process, so every human renderer and every stderr
// message goes through it, whoever wrote it. Machine formats (JSON, SARIF, JUnit) carry no raw control character
// of their own (their syntax escapes them; see escapeJsonControls), so the guard leaves them byte-for-byte alone.
//
// What survives: text, \n, \t, SGR colour (`ESC [ ... m`), and \r directly before \n or before our own
// erase-line (`\r\x1b[2K`, progress). On a TTY, in the leading run of control sequences of a write only (where
// ink and the progress line put theirs; data never comes first), also cursor movement and erase (A-H, J, K) and
// DEC private modes (`ESC [ ? N h/l`: cursor visibility, alternate screen). Everything else is removed: OSC/DCS/APC/PM/SOS strings whole, other CSI and ESC sequences
// whole, lone ESC, C0 controls, DEL, C1 controls (U+0080-U+009F) and the bidi overrides (U+202A-U+202E,
// U+2066-U+2069) that reorder what is displayed. Off a TTY only SGR survives (nothing of ours uses more there).

export interface TerminalSafeOptions {
  /** Keep the cursor/erase/private-mode CSI sequences (interactive terminal). Default false. */
  tty?: boolean
}

// One alternation, scanned left to right once: linear in the input.
//  1: string controls (OSC, DCS, SOS, PM, APC), ESC- or C1-introduced, ended by BEL, ST (ESC \ or U+009C) or the end
//  2: CSI (ESC [ or U+009B) with its parameter/intermediate bytes and final byte
//  3: any other ESC sequence (ESC + intermediates + final), or a lone ESC
//  4: \r not before \n
//  5: other C0 controls except \t \n, DEL, C1 controls, bidi overrides
const HOSTILE =
  // eslint-disable-next-line no-control-regex
  /(?:\x1b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\x07\x1b\u009c\n]*(?:\x07|\x1b\\|\u009c)?|(?:\x1b\[|\u009b)([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e]?)|\x1b[\x20-\x2f]*[\x30-\x7e]?|\r(?!\n)|[\x00-\x08\x0b-\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g

const SGR_PARAMS = /^[0-9;:]*$/
const CURSOR_PARAMS = /^[0-9;]*$/
const PRIVATE_MODES = /^\?(25|1049|1047|47|2004|1000|1002|1003|1006|7|12)$/

// A write's leading run of control sequences: where ink (erase lines, cursor moves, clear), the alternate screen
// and the progress line put theirs. Data never comes first in a write, so past this run only SGR survives even on
// a TTY: a Service name cannot move the cursor or clear the dashboard.
// eslint-disable-next-line no-control-regex
const LEADING_CONTROLS = /^(?:\x1b\[[0-9;?]*[A-Za-z]|\r)+/

/** Text safe to write to a terminal. Idempotent; linear in the length of `text`. */
export function terminalSafe(text: string, options: TerminalSafeOptions = {}): string {
  if (!needsWork(text)) return text
  if (options.tty) {
    const lead = LEADING_CONTROLS.exec(text)?.[0] ?? ''
    if (lead !== '') return clean(lead, true) + clean(text.slice(lead.length), false)
  }
  return clean(text, false)
}

function clean(text: string, tty: boolean): string {
  return text.replace(HOSTILE, (m: string, params: string | undefined, inter: string | undefined, final: string | undefined) => {
    if (m === '\r') return tty ? m : '' // a bare \r rewrites the line: only ours, in the leading run
    if (params === undefined) return '' // not a CSI
    if (m.startsWith('\u009b')) return '' // 8-bit CSI: never ours
    if (inter !== '' || final === '' || final === undefined) return ''
    if (final === 'm' && SGR_PARAMS.test(params)) return m
    if (!tty) return ''
    if ('ABCDEFGHJK'.includes(final) && CURSOR_PARAMS.test(params)) return m
    if ((final === 'h' || final === 'l') && PRIVATE_MODES.test(params)) return m
    return ''
  })
}

// Fast path: most writes are plain printable text.
// eslint-disable-next-line no-control-regex
const SUSPECT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/

function needsWork(text: string): boolean {
  return SUSPECT.test(text)
}

/**
 * JSON text with every raw character a terminal could act on (DEL, C1, bidi overrides, U+2028/9) written as a
 * \uXXXX escape: the same JSON value, and nothing for the terminal guard to change. (JSON.stringify already
 * escapes C0.)
 */
export function escapeJsonControls(json: string): string {
  return json.replace(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

type Write = NodeJS.WriteStream['write']
const GUARDED = Symbol.for('node-doctor.terminal-guard')

/**
 * Wraps the write method of process.stdout and process.stderr (once; later calls are no-ops) so that everything
 * written is terminalSafe() for that stream. Buffers are decoded as UTF-8 (a sequence split across writes is
 * judged per write, so a split ESC is removed on its own rather than completed).
 */
export function installTerminalGuard(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    const s = stream as NodeJS.WriteStream & {[GUARDED]?: true}
    if (s[GUARDED]) continue
    s[GUARDED] = true
    const original = s.write.bind(s) as (...args: unknown[]) => boolean
    const guarded = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      let text: string | undefined
      if (typeof chunk === 'string') text = chunk
      else if (chunk instanceof Uint8Array) text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
      if (text === undefined) return original(chunk, ...rest)
      const safe = terminalSafe(text, {tty: Boolean(s.isTTY)})
      // A Buffer chunk with an encoding argument: the encoding no longer applies to the string we pass.
      if (typeof chunk !== 'string' && typeof rest[0] === 'string') rest = rest.slice(1)
      return original(safe, ...rest)
    }
    s.write = guarded as Write
  }
}
