// BGP peer status of a Calico node, from the two places it can be read (node-state.md D.3):
//
// BIRD's `show protocols` (calico-node runs BIRD 1.6: `bird` on /var/run/calico/bird.ctl, `bird6` on bird6.ctl),
// through birdcl/birdc or straight from the control socket (then every line carries a reply code):
//   BIRD v0.3.3+birdv1.6.8 ready.                 0001 BIRD 1.6.8 ready.
//   name     proto    table    state  since       info                        2002-name     proto ...
//   kernel1  Kernel   master   up     15:31:48                                1002-kernel1  Kernel ...
//   Mesh_192_168_0_12 BGP      master   up     15:31:51    Established         Mesh_192_168_0_12 BGP ...
//   Mesh_192_168_1_13 BGP      master   start  15:31:48    Active        Socket: Network is unreachable
//   Mesh_192_168_1_14 BGP      master   down   15:32:04                   (a disabled protocol: no BGP state)
// `state` is BIRD's protocol state (up, start, stop, down, feed, flush); `info` starts with the BGP state (Idle,
// Connect, Active, Passive, OpenSent, OpenConfirm, Established, Close) unless the protocol is down, followed by the
// last error ("Socket: ...", "Received: ...", "Error: ...", "BGP Error: ..."). `since` is a time today or a date.
// Calico names its BGP protocols after the peer (confd bird.cfg.template): Mesh_<ip>, Global_<ip>[_port_<port>],
// Node_<ip>[_port_<port>], with the address's dots or colons written as underscores.
//
// `calicoctl node status` (calicoctl/commands/node/status.go): the same peers as a table, per family:
//   Calico process is running.
//
//   IPv4 BGP status
//   +--------------+-------------------+-------+----------+-------------+
//   | PEER ADDRESS |     PEER TYPE     | STATE |  SINCE   |    INFO     |
//   +--------------+-------------------+-------+----------+-------------+
//   | 192.168.0.12 | node-to-node mesh | up    | 15:31:51 | Established |
//   +--------------+-------------------+-------+----------+-------------+
//
//   IPv6 BGP status
//   No IPv6 peers found.
// or "INFO: BIRDv4 process: 'bird' is not running." / "None of the BGP backend processes (BIRD or GoBGP) are
// running." / "Error querying BIRD: unable to connect to BIRDv4 socket: ...". Long cells wrap onto continuation
// rows whose first cell is empty (tablewriter). Old releases print mixed-case headers and
// "calico-node container is running. Status: ...".
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../errors.js'
import {firstContentLine, type InputLine, splitInputLines, wrongArtifact} from './sniff.js'

export type BgpFamily = 'inet' | 'inet6'
export type BgpPeerType = 'node-to-node mesh' | 'global' | 'node specific'

/** One row of BIRD's `show protocols`. */
export interface BirdProtocol {
  name: string
  /** BGP, Kernel, Device, Direct, Static, BFD, ... */
  proto: string
  table: string
  /** BIRD's protocol state: up, start, stop, down, feed, flush. */
  state: string
  since: string
  /** Everything after `since`, trimmed ('' when empty). */
  info: string
  line: number
}

export interface BirdProtocols {
  format: 'birdcl' | 'bird-socket'
  /** `BIRD 1.6.8`, `BIRD v0.3.3+birdv1.6.8` from the greeting, when printed. */
  version?: string
  protocols: BirdProtocol[]
}

/** A BGP session as node-doctor judges it, from either source. */
export interface BgpPeer {
  family: BgpFamily
  /** The peer's address; absent when a BIRD protocol name does not follow Calico's naming. */
  address?: string
  /** BGP port when not 179 (Calico's `_port_NNN` suffix). */
  port?: number
  type?: BgpPeerType
  /** BIRD protocol name (BIRD source only). */
  protocol?: string
  /** BIRD's protocol state (up, start, down, ...). */
  state: string
  since: string
  /** The BGP session state (Established, Active, Connect, Passive, ...); absent for a protocol that is down. */
  bgpState?: string
  /** Last error or other detail after the BGP state ('' when none). */
  info: string
  /** Input line of the row. */
  line: number
}

export function isEstablished(p: BgpPeer): boolean {
  return p.bgpState === 'Established'
}

const EXPECTED_BIRD = "BIRD's `show protocols` output (birdcl -s /var/run/calico/bird.ctl show protocols)"
const EXPECTED_CALICOCTL = '`calicoctl node status` output'
const HEADINGS = ['name', 'proto', 'table', 'state', 'since', 'info']
const GREETING_RE = /^(BIRD .*?) ready\.\s*$/
const SOCKET_CODE_RE = /^(\d{4})([ -])(.*)$/
const PEER_NAME_RE = /^(Mesh|Global|Node)_(.+?)(?:_port_(\d{1,5}))?$/
const PEER_TYPES: Record<string, BgpPeerType> = {Mesh: 'node-to-node mesh', Global: 'global', Node: 'node specific'}
/** A word that is a BGP state rather than an error class such as `Socket:`. */
const BGP_STATE_RE = /^[A-Za-z]+$/
const DATE_RE = /^\d{4}-\d{2}-\d{2}$|^\d{2}-\d{2}-\d{4}$/
const TIME_RE = /^\d{2}:\d{2}:\d{2}(\.\d+)?$/

/** BIRD could not be asked: its control socket is absent or refuses (birdcl/birdc print this and exit 1). */
export class BirdUnreachableError extends ParseError {}

/**
 * Parses `show protocols` from birdcl/birdc or the raw control socket. Throws BirdUnreachableError when the output
 * is the client's "Unable to connect" message, ParseError (with the line) when it is not a protocol table.
 */
export function parseBirdProtocols(text: string): BirdProtocols {
  const lines = splitInputLines(text, EXPECTED_BIRD)
  const first = firstContentLine(lines)!
  const unreachable = /^Unable to connect to server control socket.*$/m.exec(text)
  if (unreachable) throw new BirdUnreachableError(unreachable[0].trim(), lineOf(lines, unreachable[0]))
  const format: BirdProtocols['format'] = SOCKET_CODE_RE.test(first.text) ? 'bird-socket' : 'birdcl'
  const out: BirdProtocols = {format, protocols: []}
  let headings = false
  // Socket replies: the code of the reply a continuation line (" ...") belongs to.
  let code = ''
  for (const l of lines) {
    let t = l.text
    if (format === 'bird-socket') {
      const m = SOCKET_CODE_RE.exec(t)
      if (m) {
        code = m[1]!
        if (code === '0000') break
        if (code.startsWith('8') || code.startsWith('9')) throw new ParseError(`BIRD answered with error ${code}: ${m[3]!.trim()}`, l.n)
        t = m[3]!
      } else if (t.startsWith(' ')) t = t.slice(1)
      else if (t.trim() === '') continue
      else throw new ParseError(`a control-socket reply line starts with a 4-digit code or a space; got ${JSON.stringify(t.slice(0, 40))}`, l.n)
      // 1006 and others are `show protocols all` details of the row above.
      if (!['0001', '2002', '1002'].includes(code)) continue
    } else if (/^\s/.test(t)) continue // `show protocols all` details, indented under their row
    if (t.trim() === '') continue
    const greeting = GREETING_RE.exec(t.trim())
    if (greeting) {
      out.version = greeting[1]!
      continue
    }
    const words = t.trim().split(/\s+/)
    if (!headings) {
      if (words.map((w) => w.toLowerCase()).join(' ') !== HEADINGS.join(' ')) {
        if (out.version === undefined) throw wrongArtifact(text, EXPECTED_BIRD, l.n)
        throw new ParseError(`expected the heading "name proto table state since info"; got ${JSON.stringify(t.trim().slice(0, 60))}`, l.n)
      }
      headings = true
      continue
    }
    if (words.length < 5) throw new ParseError(`a protocol row has name, proto, table, state and since; got ${JSON.stringify(t.trim().slice(0, 60))}`, l.n)
    const [name, proto, table, state] = words as [string, string, string, string]
    let rest = words.slice(4)
    let since = rest[0]!
    // `timeformat protocol iso long` prints a date and a time.
    if (DATE_RE.test(since) && rest[1] !== undefined && TIME_RE.test(rest[1])) {
      since = `${since} ${rest[1]}`
      rest = rest.slice(1)
    }
    out.protocols.push({name, proto, table, state, since, info: rest.slice(1).join(' '), line: l.n})
  }
  if (!headings) throw new ParseError(`no protocol table: expected ${EXPECTED_BIRD}`, lines.at(-1)?.n ?? 1)
  return out
}

function lineOf(lines: readonly InputLine[], text: string): number {
  return lines.find((l) => l.text.includes(text.trim()))?.n ?? 1
}

/** Reads Calico's peer naming (`Mesh_10_0_0_2`, `Node_fd00__1_port_1790`); undefined for other names. */
export function calicoPeerFromName(name: string): {type: BgpPeerType; address: string; family: BgpFamily; port?: number} | undefined {
  const m = PEER_NAME_RE.exec(name)
  if (!m) return undefined
  const type = PEER_TYPES[m[1]!]!
  const body = m[2]!
  const v4 = body.replaceAll('_', '.')
  const v6 = body.replaceAll('_', ':')
  let address: string
  let family: BgpFamily
  if (ipaddr.IPv4.isValidFourPartDecimal(v4)) {
    address = v4
    family = 'inet'
  } else if (ipaddr.IPv6.isValid(v6) && v6.includes(':')) {
    address = ipaddr.IPv6.parse(v6).toString()
    family = 'inet6'
  } else return undefined
  const out: {type: BgpPeerType; address: string; family: BgpFamily; port?: number} = {type, address, family}
  if (m[3] !== undefined) out.port = Number(m[3])
  return out
}

function splitInfo(info: string, state: string): {bgpState?: string; info: string} {
  const words = info.split(' ').filter((w) => w !== '')
  // A protocol that is down prints only its last error (BIRD's bgp_get_status).
  if (state !== 'down' && words[0] !== undefined && BGP_STATE_RE.test(words[0])) return {bgpState: words[0], info: words.slice(1).join(' ')}
  return {info: words.join(' ')}
}

/**
 * The BGP sessions among BIRD's protocols. `family` is the daemon's (bird: inet, bird6: inet6); a Calico peer
 * name's address decides when it is readable.
 */
export function bgpPeersFromBird(table: BirdProtocols, family: BgpFamily): BgpPeer[] {
  return table.protocols
    .filter((p) => p.proto.toUpperCase() === 'BGP')
    .map((p) => {
      const named = calicoPeerFromName(p.name)
      const peer: BgpPeer = {family: named?.family ?? family, protocol: p.name, state: p.state, since: p.since, ...splitInfo(p.info, p.state), line: p.line}
      if (named) {
        peer.address = named.address
        peer.type = named.type
        if (named.port !== undefined) peer.port = named.port
      }
      return ordered(peer)
    })
}

const PEER_KEYS: ReadonlyArray<keyof BgpPeer> = ['family', 'address', 'port', 'type', 'protocol', 'state', 'since', 'bgpState', 'info', 'line']

function ordered(p: BgpPeer): BgpPeer {
  const out: Record<string, unknown> = {}
  for (const k of PEER_KEYS) if (p[k] !== undefined) out[k] = p[k]
  return out as unknown as BgpPeer
}

// ---------------------------------------------------------------------------------------------------------------
// calicoctl node status

export type CalicoFamilyStatus =
  | {status: 'peers'; peers: BgpPeer[]}
  /** "No IPv4 peers found.": the daemon runs and has no BGP protocol. */
  | {status: 'no-peers'}
  /** BIRD for this family is not running, or no BGP daemon runs at all. */
  | {status: 'not-running'; message: string}
  /** calicoctl could not reach BIRD's socket. */
  | {status: 'unreachable'; message: string}

export interface CalicoNodeStatus {
  /** "Calico process is running." (or the old "calico-node container is running"). */
  running: boolean
  families: Partial<Record<BgpFamily, CalicoFamilyStatus>>
}

const TABLE_RULE_RE = /^\+[-+]+\+$/

/** Parses `calicoctl node status`. Throws ParseError (with the line) on anything else. */
export function parseCalicoNodeStatus(text: string): CalicoNodeStatus {
  const lines = splitInputLines(text, EXPECTED_CALICOCTL)
  const first = firstContentLine(lines)!
  const out: CalicoNodeStatus = {running: false, families: {}}
  if (/^Calico process is not running\.?$/i.test(first.text.trim())) return out
  if (!/^(Calico process is running\.?|calico-node container is running\b.*)$/i.test(first.text.trim())) throw wrongArtifact(text, EXPECTED_CALICOCTL, first.n)
  out.running = true
  let family: BgpFamily | undefined
  let columns: string[] | undefined
  let peers: BgpPeer[] = []
  const finishTable = () => {
    if (family !== undefined && columns !== undefined) out.families[family] = {status: 'peers', peers}
    columns = undefined
    peers = []
  }
  for (const l of lines.slice(lines.indexOf(first) + 1)) {
    const t = l.text.trim()
    if (t === '') continue
    const section = /^IPv([46]) BGP status$/i.exec(t)
    if (section) {
      finishTable()
      family = section[1] === '4' ? 'inet' : 'inet6'
      continue
    }
    const notRunning = /^(?:INFO: )?BIRDv([46]) process: .* is not running\.?$/.exec(t)
    if (notRunning) {
      finishTable()
      out.families[notRunning[1] === '4' ? 'inet' : 'inet6'] = {status: 'not-running', message: t}
      family = undefined
      continue
    }
    if (/^None of the BGP backend processes .* are running\.?$/.test(t)) {
      finishTable()
      out.families = {inet: {status: 'not-running', message: t}, inet6: {status: 'not-running', message: t}}
      family = undefined
      continue
    }
    if (family === undefined) throw new ParseError(`unexpected line outside an "IPvN BGP status" section: ${JSON.stringify(t.slice(0, 60))}`, l.n)
    const none = /^No IPv([46]) peers found\.?$/.exec(t)
    if (none) {
      out.families[family] = {status: 'no-peers'}
      family = undefined
      continue
    }
    // calicoctl prints this without a newline, so the next section may follow on the same line.
    const unreachable = /^(Error querying BIRD: .*?)(IPv([46]) BGP status)?$/.exec(t)
    if (unreachable) {
      out.families[family] = {status: 'unreachable', message: unreachable[1]!.trim()}
      family = unreachable[3] === undefined ? undefined : unreachable[3] === '4' ? 'inet' : 'inet6'
      continue
    }
    if (TABLE_RULE_RE.test(t)) continue
    if (!t.startsWith('|') || !t.endsWith('|')) throw new ParseError(`expected a peer table row (| PEER ADDRESS | PEER TYPE | STATE | SINCE | INFO |); got ${JSON.stringify(t.slice(0, 60))}`, l.n)
    const cells = t.slice(1, -1).split('|').map((c) => c.trim())
    if (columns === undefined) {
      const names = cells.map((c) => c.toUpperCase())
      if (names.join('|') !== 'PEER ADDRESS|PEER TYPE|STATE|SINCE|INFO') throw new ParseError(`unknown peer table heading ${JSON.stringify(t.slice(0, 80))}`, l.n)
      columns = names
      continue
    }
    if (cells.length !== 5) throw new ParseError(`a peer row has 5 cells; got ${cells.length}`, l.n)
    const [address, type, state, since, info] = cells as [string, string, string, string, string]
    const prev = peers.at(-1)
    if (address === '' && prev) {
      // A wrapped cell continues the row above.
      const more = (a: string, b: string) => (b === '' ? a : a === '' ? b : `${a} ${b}`)
      prev.since = more(prev.since, since)
      if (prev.bgpState === undefined) Object.assign(prev, splitInfo(more(prev.info, info), prev.state))
      else prev.info = more(prev.info, info)
      continue
    }
    if (!ipaddr.isValid(address)) throw new ParseError(`${JSON.stringify(address)} is not a peer address`, l.n)
    const peer: BgpPeer = {family, address: ipaddr.parse(address).toString(), state, since, ...splitInfo(info, state), line: l.n}
    if (type === 'node-to-node mesh' || type === 'global' || type === 'node specific') peer.type = type
    peers.push(peer)
  }
  finishTable()
  for (const f of ['inet', 'inet6'] as const) {
    const s = out.families[f]
    if (s?.status === 'peers') s.peers = s.peers.map(ordered)
  }
  return out
}
