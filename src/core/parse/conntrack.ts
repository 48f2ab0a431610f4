// `conntrack -L` output (conntrack-tools 1.4.x), default and `-o extended[,id]` formats, e.g.
//   udp      17 28 src=10.244.1.5 dst=10.96.0.10 sport=41234 dport=53 [UNREPLIED] src=10.244.2.7 dst=10.244.1.5 sport=53 dport=41234 mark=0 use=1
//   ipv4     2 tcp      6 431999 ESTABLISHED src=… dst=… sport=… dport=… src=… … [ASSURED] mark=0 use=1 id=123
// The first src/dst/sport/dport group is the original direction, the second the reply direction: for a
// DNATed Service connection the reply source is the endpoint kube-proxy picked.
import {ParseError} from '../../errors.js'
import type {IpFamily} from '../net/ip.js'

export interface ConntrackTuple {
  src: string
  dst: string
  sport?: number
  dport?: number
}

export interface ConntrackEntry {
  /** `ipv4`/`ipv6` in the extended format, else undefined. */
  family?: IpFamily
  protocol: string
  protocolNumber: number
  /** Seconds until the entry expires. */
  timeout: number
  /** TCP/SCTP state (ESTABLISHED, TIME_WAIT, ...), absent for UDP. */
  state?: string
  original: ConntrackTuple
  reply: ConntrackTuple
  /** Bracketed flags in order: UNREPLIED, ASSURED, OFFLOAD, HW_OFFLOAD, ... */
  flags: string[]
  /** Other key=value fields: mark, use, zone, id, secctx, labels, ... */
  fields: Record<string, string>
  /** 1-based input line and its text. */
  line: number
  raw: string
}

const SUMMARY_RE = /^conntrack v[\d.]+ \(conntrack-tools\):/

function tuple(kv: Record<string, string>, line: number, which: string): ConntrackTuple {
  const src = kv['src']
  const dst = kv['dst']
  if (src === undefined || dst === undefined) throw new ParseError(`the ${which} tuple lacks src= or dst=`, line)
  const t: ConntrackTuple = {src, dst}
  if (kv['sport'] !== undefined) t.sport = Number(kv['sport'])
  if (kv['dport'] !== undefined) t.dport = Number(kv['dport'])
  return t
}

/** Parses one entry line. Throws ParseError naming the line when it is not a conntrack entry. */
export function parseConntrackLine(raw: string, lineNo = 1): ConntrackEntry {
  const words = raw.trim().split(/\s+/)
  let i = 0
  let family: ConntrackEntry['family']
  if (words[0] === 'ipv4' || words[0] === 'ipv6') {
    family = words[0]
    i = 2
  }
  const protocol = words[i]
  const protocolNumber = Number(words[i + 1])
  const timeout = Number(words[i + 2])
  if (!protocol || !/^[a-z0-9-]+$/.test(protocol) || !Number.isInteger(protocolNumber) || !Number.isInteger(timeout)) {
    throw new ParseError(`not a conntrack entry (expected "PROTO NUMBER TIMEOUT src=…"): ${JSON.stringify(raw.slice(0, 60))}`, lineNo)
  }
  i += 3
  let state: string | undefined
  if (words[i] !== undefined && /^[A-Z_]+$/.test(words[i] ?? '')) state = words[i++]
  const groups: Array<Record<string, string>> = [{}, {}]
  let g = 0
  const flags: string[] = []
  const fields: Record<string, string> = {}
  for (const w of words.slice(i)) {
    const flag = /^\[([A-Z_]+)\]$/.exec(w)
    if (flag) {
      flags.push(flag[1] ?? '')
      continue
    }
    const eq = w.indexOf('=')
    if (eq <= 0) throw new ParseError(`unexpected word ${JSON.stringify(w)} in a conntrack entry`, lineNo)
    const key = w.slice(0, eq)
    const value = w.slice(eq + 1)
    if (key === 'src' || key === 'dst' || key === 'sport' || key === 'dport') {
      const cur = groups[g] as Record<string, string>
      // A second src= starts the reply tuple.
      if (key in cur) {
        if (g === 1) throw new ParseError(`a third ${key}= in a conntrack entry`, lineNo)
        g = 1
      }
      ;(groups[g] as Record<string, string>)[key] = value
      continue
    }
    if (key === '__proto__') continue
    fields[key] = value
  }
  const entry: ConntrackEntry = {
    protocol,
    protocolNumber,
    timeout,
    original: tuple(groups[0] ?? {}, lineNo, 'original'),
    reply: tuple(groups[1] ?? {}, lineNo, 'reply'),
    flags,
    fields,
    line: lineNo,
    raw: raw.trim(),
  }
  if (family !== undefined) entry.family = family
  if (state !== undefined) entry.state = state
  return entry
}

/**
 * Parses `conntrack -L` text. Blank lines and the tool's "N flow entries have been shown." summary (stderr, but
 * often captured with stdout) are skipped. Throws ParseError on the first line that is not an entry.
 */
export function parseConntrack(text: string): ConntrackEntry[] {
  const out: ConntrackEntry[] = []
  text.split(/\r?\n/).forEach((raw, idx) => {
    const line = raw.trim()
    if (line === '' || SUMMARY_RE.test(line)) return
    out.push(parseConntrackLine(line, idx + 1))
  })
  return out
}

/** True when the connection was destination-NATed: the reply does not come from the original destination. */
export function isDestinationNatted(e: ConntrackEntry): boolean {
  return e.reply.src !== e.original.dst || (e.reply.sport !== undefined && e.original.dport !== undefined && e.reply.sport !== e.original.dport)
}
