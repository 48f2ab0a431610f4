// Which ipvsadm variant a text is, and where its body starts.
import {ParseError} from '../../../errors.js'
import {type InputLine, wrongArtifact} from '../sniff.js'
import type {Leniency} from './leniency.js'
import type {IpvsFormat} from './model.js'

/** What ipvsadm output is, for errors that name the expected input. */
export const EXPECTED = 'ipvsadm output (`ipvsadm -Ln`, `-Ln --stats|--rate|--persistent-conn|--thresholds` or `-Sn`)'

interface Detected {
  format: IpvsFormat
  /** Index into lines where services start. */
  bodyStart: number
  version?: string
  size?: number
}

const VERSION_RE = /^IP Virtual Server version (\S+) \(size=(\d+)\)\s*$/

/**
 * The variant and where its body starts. `lenient` (pasted input only) also reads listings whose header lines were
 * cut off (starting at the real-server header, a service line or a real server line) and says what it assumed.
 */
export function detect(lines: InputLine[], text: string, lenient?: Leniency): Detected {
  let i = 0
  while (i < lines.length && lines[i]!.text.trim() === '') i++
  const first = lines[i]!
  const t = first.text.trim()
  if (/^Can't initialize ipvs|^Memory allocation problem|^ipvsadm: /.test(t))
    throw new ParseError(`this is an ipvsadm error message, not its output: "${t.slice(0, 120)}"`, first.n)
  if (/^IPVS connection entries/.test(t)) throw new ParseError('this is the IPVS connection table (`ipvsadm -Lnc`), not supported: collect `ipvsadm -Ln`', first.n)
  if (/^Timeout \(tcp tcpfin udp\)/.test(t)) throw new ParseError('this is `ipvsadm -L --timeout` output, not supported: collect `ipvsadm -Ln`', first.n)
  if (/^(master|backup) sync daemon/.test(t)) throw new ParseError('this is `ipvsadm -L --daemon` output, not supported: collect `ipvsadm -Ln`', first.n)
  if (/^-[Aa]\s/.test(t) || /^--add-serv(ice|er)\s/.test(t)) return {format: 'save', bodyStart: i}

  let version: string | undefined
  let size: number | undefined
  const vm = VERSION_RE.exec(t)
  if (vm) {
    version = vm[1]
    size = Number(vm[2])
    i++
    while (i < lines.length && lines[i]!.text.trim() === '') i++
    if (i >= lines.length) throw new ParseError('input ends after the version line: expected the `Prot LocalAddress:Port` header', first.n + 1)
  } else if (t.startsWith('IP Virtual Server')) {
    throw new ParseError('malformed ipvsadm version line: expected "IP Virtual Server version X (size=N)"', first.n)
  }
  const head = lines[i]!
  const h = head.text.trim().split(/\s+/)
  if (lenient) {
    const cut = headerCut(lines, i, lenient)
    if (cut) return {...cut, ...(version === undefined ? {} : {version}), ...(size === undefined ? {} : {size})}
  }
  if (h[0] === 'Prot' && h[1] === 'LocalAddress:Port') {
    const rest = h.slice(2).join(' ')
    let format: IpvsFormat
    if (rest === 'Scheduler Flags') format = 'list'
    else if (rest === 'Conns InPkts OutPkts InBytes OutBytes') format = 'list-stats'
    else if (rest === 'CPS InPPS OutPPS InBPS OutBPS') format = 'list-rate'
    else if (rest === 'Uthreshold Lthreshold ActiveConn InActConn') format = 'list-thresholds'
    else if (rest === 'Weight PersistConn ActiveConn InActConn') format = 'list-persistent-conn'
    else throw new ParseError(`unknown ipvsadm listing header "${head.text.trim()}"`, head.n)
    let j = i + 1
    while (j < lines.length && lines[j]!.text.trim() === '') j++
    const sub = lines[j]
    if (!sub) throw new ParseError('input ends after the header: expected the `  -> RemoteAddress:Port` header line', head.n + 1)
    const s = sub.text.trim().split(/\s+/)
    if (s[0] !== '->' || s[1] !== 'RemoteAddress:Port')
      throw new ParseError(`expected the "  -> RemoteAddress:Port" header line, found "${sub.text.trim().slice(0, 80)}"`, sub.n)
    const cols = s.slice(2).join(' ')
    if (format === 'list') {
      if (cols === 'Forward TunnelInfo Weight ActiveConn InActConn') format = 'list-tun-info'
      else if (cols !== 'Forward Weight ActiveConn InActConn')
        throw new ParseError(`unknown real-server header "${sub.text.trim()}"`, sub.n)
    } else if (cols !== '') {
      throw new ParseError(`unexpected columns "${cols}" in the real-server header of this variant`, sub.n)
    }
    return {format, bodyStart: j + 1, version, size}
  }
  // A header-less paste of a plain listing: starts straight at a service line.
  if (/^(TCP|UDP|SCTP)\s+\S+:\S*\s+[a-z]+\b/.test(head.text) || /^FWM\s+\d+\s/.test(head.text)) {
    return {format: 'list', bodyStart: i, version, size}
  }
  if (version !== undefined) throw new ParseError(`expected the "Prot LocalAddress:Port ..." header, found "${head.text.trim().slice(0, 80)}"`, head.n)
  throw wrongArtifact(text, EXPECTED, first.n)
}

const SERVICE_START = /^(TCP|UDP|SCTP)\s+\S+/
const COUNT = /^\d{1,20}[KMGT]?$/
const FORWARD_WORDS = new Set(['Masq', 'Local', 'Route', 'Tunnel'])

/**
 * A listing whose first header line (or both) was cut off, read by the shape of its first lines; null when the
 * listing starts with its `Prot LocalAddress:Port` header (or is not a listing: the strict path decides).
 */
function headerCut(lines: InputLine[], i: number, lenient: Leniency): Omit<Detected, 'version' | 'size'> | null {
  const head = lines[i]!
  const h = head.text.trim().split(/\s+/)
  const next = (from: number): InputLine | undefined => lines.slice(from).find((l) => l.text.trim() !== '')
  const ASSUMED = 'the `Prot LocalAddress:Port` header line was cut off'
  if (h[0] === '->' && h[1] === 'RemoteAddress:Port') {
    const cols = h.slice(2).join(' ')
    if (cols === 'Forward Weight ActiveConn InActConn') {
      lenient.warn(head.n, `${ASSUMED}: read as \`ipvsadm -Ln\` from the real-server header`)
      return {format: 'list', bodyStart: i + 1}
    }
    if (cols === 'Forward TunnelInfo Weight ActiveConn InActConn') {
      lenient.warn(head.n, `${ASSUMED}: read as \`ipvsadm -Ln --tun-info\` from the real-server header`)
      return {format: 'list-tun-info', bodyStart: i + 1}
    }
    if (cols !== '') return null
    // --stats, --rate, --thresholds and --persistent-conn all print a bare `  -> RemoteAddress:Port`.
    const svc = next(i + 1)
    const tok = svc?.text.trim().split(/\s+/) ?? []
    const counts = tok.length >= 7 && tok.slice(2).every((t) => COUNT.test(t))
    lenient.warn(
      head.n,
      counts
        ? `${ASSUMED}: read as \`ipvsadm -Ln --stats\` (counters on the service lines; --rate prints the same shape: the columns may be rates)`
        : `${ASSUMED}: read as \`ipvsadm -Ln --persistent-conn\` (Weight PersistConn ActiveConn InActConn; --thresholds prints the same shape)`,
    )
    return {format: counts ? 'list-stats' : 'list-persistent-conn', bodyStart: i + 1}
  }
  if (SERVICE_START.test(head.text) || /^FWM\s+\d+\s/.test(head.text)) {
    const rest = h.slice(h[0] === 'FWM' ? (h[2] === 'IPv6' ? 3 : 2) : 2)
    if (rest.length === 5 && rest.every((t) => COUNT.test(t))) {
      lenient.warn(head.n, `the header lines were cut off: read as \`ipvsadm -Ln --stats\` (five counters on the service line; --rate prints the same shape)`)
      return {format: 'list-stats', bodyStart: i}
    }
    lenient.warn(head.n, 'the header lines were cut off: read as `ipvsadm -Ln` from the service lines')
    return {format: 'list', bodyStart: i}
  }
  if (h[0] === '->' && h.length >= 3) {
    // Even the first service line was cut off: its real servers are skipped, the format comes from their columns.
    const rest = h.slice(2)
    let format: IpvsFormat = 'list'
    if (FORWARD_WORDS.has(rest[0] ?? '')) format = rest.length === 5 ? 'list-tun-info' : 'list'
    else if (rest.length === 5 && rest.every((t) => COUNT.test(t))) format = 'list-stats'
    else if (rest.length === 4 && rest.every((t) => COUNT.test(t))) format = 'list-persistent-conn'
    else return null
    lenient.warn(head.n, `the listing starts inside a virtual service (its header and service lines were cut off): read as the ${format === 'list' ? '`ipvsadm -Ln`' : `\`ipvsadm -Ln --${format.slice(5)}\``} listing`)
    return {format, bodyStart: i}
  }
  return null
}
