// Several plan commands as ONE POSIX sh script on one exec, and that script's framed output read back.
//
// A command sent on its own costs the node a session (sshd forks and sets up a session, then a shell) and the
// client a channel; for ~30 commands per node that is most of a fleet run. The script runs the commands one after
// another in one shell: each one costs only its own process. Nothing is written to disk but a private temporary
// directory (mktemp -d) for the watchdog's bookkeeping, removed at the end.
//
// Framing: every item's stdout and stderr go straight to the script's stdout and stderr, each preceded by a
// header line on that stream, `@@nd<NONCE> o N` / `@@nd<NONCE> e N`; after the command, stdout gets
// `@@nd<NONCE> r N EXIT TIMEDOUT`, and both streams end with `@@nd<NONCE> end`. Every header starts with a newline
// of its own, so an item's output is exactly the bytes between its header and the next one. The nonce is random
// per run: no command's output can forge a header.
//
// Per-command timeouts: one watchdog subshell ticks once a second (one `sleep 1` process per second) and reads
// which item runs (`N PID`, written by the script with builtins); an item running for TIMEOUT seconds is marked
// timed out and TERMed (with its children, through pkill -P where pkill exists), and KILLed two ticks later.
// The watchdog ends with the script and removes the directory. A command's own exit code 124 or 137 is never
// taken for a timeout: only the watchdog's mark says so.
//
// Pure: builds and parses text; the caller runs it with a transport and falls back to one exec per command for
// whatever the script did not report (a node whose shell cannot run it, no mktemp).

export interface BatchItem {
  /** The command line, already shell-quoted (commandLine()). */
  command: string
}

export interface BatchOptions {
  /** Random, [0-9a-f]{16,}: makes the frame headers unforgeable by command output. */
  nonce: string
  /** Per-command timeout in milliseconds (rounded up to whole seconds; at least 1). */
  timeoutMs: number
  /** Seconds between the TERM and the KILL of a timed-out command. */
  killAfterS?: number
}

export interface BatchItemResult {
  stdout: string
  stderr: string
  /** null when the script reported no exit code for it (cut off while it ran). */
  exitCode: number | null
  timedOut: boolean
}

export interface BatchOutput {
  /** Results by item index, for every item whose end the script reported. */
  results: Map<number, BatchItemResult>
  /** Index of the item that had started but not ended when the output stopped, if any. */
  cutOff?: number
  /** Both streams carried the end frame: the script ran to its end. */
  complete: boolean
}

const NONCE = /^[0-9a-f]{16,64}$/

function tag(nonce: string): string {
  if (!NONCE.test(nonce)) throw new Error(`batch nonce must be 16-64 lowercase hex digits, got ${JSON.stringify(nonce)}`)
  return `@@nd${nonce}`
}

/** What both of the script's streams end with once it ran to its end (for ExecOptions.endMarkers). */
export function batchEndMarker(nonce: string): string {
  return `\n${tag(nonce)} end\n`
}

/** Default seconds between the TERM and the KILL of a timed-out command. */
export const BATCH_KILL_AFTER_S = 2

/** Exit code of the script when it could not make its temporary directory (nothing ran). */
export const BATCH_SETUP_FAILED = 97

/** The script for the items, in order. */
export function batchScript(items: readonly BatchItem[], options: BatchOptions): string {
  const t = tag(options.nonce)
  const timeoutS = Math.max(1, Math.ceil(options.timeoutMs / 1000))
  const killS = timeoutS + Math.max(1, options.killAfterS ?? BATCH_KILL_AFTER_S)
  const lines = [
    `d=$(mktemp -d 2>/dev/null) || exit ${BATCH_SETUP_FAILED}`,
    'm=$$',
    // The watchdog: its own stdio on /dev/null so the session ends when the script does, not a tick later.
    '(l=; s=0; k=0',
    ` while kill -0 "$m" 2>/dev/null; do`,
    '  sleep 1; k=$((k+1)); i=; p=',
    `  read -r i p <"$d/c" 2>/dev/null; [ -n "$p" ] || continue`,
    `  [ "$i" = "$l" ] || { l=$i; s=$k; }`,
    `  if [ $((k-s)) -ge ${killS} ]; then kill -s KILL "$p"`,
    `  elif [ $((k-s)) -ge ${timeoutS} ]; then : >"$d/t$i"; pkill -TERM -P "$p"; kill -s TERM "$p"; fi`,
    ' done',
    ` rm -rf "$d") </dev/null >/dev/null 2>&1 &`,
  ]
  items.forEach((item, n) => {
    lines.push(
      `printf '\\n${t} o ${n}\\n'; printf '\\n${t} e ${n}\\n' >&2`,
      `${item.command} </dev/null &`,
      `echo "${n} $!" >"$d/c"; wait "$!"; r=$?; : >"$d/c"`,
      `x=0; [ -e "$d/t${n}" ] && x=1`,
      `printf '\\n${t} r ${n} %s %s\\n' "$r" "$x"`,
    )
  })
  lines.push(`printf '\\n${t} end\\n'; printf '\\n${t} end\\n' >&2`)
  return `${lines.join('\n')}\n`
}

interface Frame {
  header: string[]
  body: string
}

/** Splits one stream into its frames (what comes before the first header is dropped: login noise). */
function frames(stream: string, t: string): Frame[] {
  const parts = stream.split(`\n${t} `)
  const out: Frame[] = []
  for (const part of parts.slice(1)) {
    const nl = part.indexOf('\n')
    const head = nl < 0 ? part : part.slice(0, nl)
    out.push({header: head.split(' '), body: nl < 0 ? '' : part.slice(nl + 1)})
  }
  return out
}

/** Reads back the script's stdout and stderr. Never throws on odd output: what is not framed is not reported. */
export function parseBatchOutput(stdout: string, stderr: string, options: {nonce: string; count: number}): BatchOutput {
  const t = tag(options.nonce)
  const valid = (s: string | undefined): number | undefined => {
    if (s === undefined || !/^\d+$/.test(s)) return undefined
    const n = Number(s)
    return n < options.count ? n : undefined
  }
  const outs = new Map<number, string>()
  const errs = new Map<number, string>()
  const ends = new Map<number, {exitCode: number | null; timedOut: boolean}>()
  let outEnd = false
  let errEnd = false
  let started: number | undefined
  for (const f of frames(stdout, t)) {
    const [kind, id, rc, timed] = f.header
    const n = valid(id)
    if (kind === 'o' && n !== undefined) {
      outs.set(n, f.body)
      started = n
    } else if (kind === 'r' && n !== undefined) {
      ends.set(n, {exitCode: rc !== undefined && /^\d+$/.test(rc) ? Number(rc) : null, timedOut: timed === '1'})
      if (started === n) started = undefined
    } else if (kind === 'end') outEnd = true
  }
  for (const f of frames(stderr, t)) {
    const [kind, id] = f.header
    const n = valid(id)
    if (kind === 'e' && n !== undefined) errs.set(n, f.body)
    else if (kind === 'end') errEnd = true
  }
  const results = new Map<number, BatchItemResult>()
  for (const [n, end] of ends) results.set(n, {stdout: outs.get(n) ?? '', stderr: errs.get(n) ?? '', ...end})
  return {results, complete: outEnd && errEnd, ...(started === undefined ? {} : {cutOff: started})}
}
