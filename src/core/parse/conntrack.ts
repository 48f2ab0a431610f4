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

// ---------------------------------------------------------------------------------------------------------------
// `conntrack -S`: the kernel's per-CPU conntrack statistics (ctnetlink's CPU stats dump), one line per CPU, e.g.
//   cpu=0   	found=0 invalid=12 insert=0 insert_failed=3 drop=0 early_drop=0 error=0 search_restart=4 clash_resolve=2 chaintoolong=0
// Which counters appear depends on the kernel (older ones also print entries=, searched=, new=, delete=, ...): every
// key=value is kept. The plan reads it twice, once at the start and once at the end of a node's collection (the
// `conntrack-stats` and `conntrack-stats-end` items: no sleep, the collection itself is the interval), each read after
// a CONNTRACK_STATS_STAMP line with the node's uptime, so that a counter can be judged as growing over a known time
// and not only as non-zero since boot.

/** The line each read starts with: `# node-doctor: uptime 12345.67` (the first field of /proc/uptime). */
export const CONNTRACK_STATS_STAMP = '# node-doctor: uptime'

export interface ConntrackCpuStats {
  cpu: number
  counters: Record<string, number>
  line: number
}

/** One `conntrack -S` read: a line per CPU, and the node's uptime (seconds) when it was taken, when printed. */
export interface ConntrackStatsRead {
  uptime?: number
  cpus: ConntrackCpuStats[]
}

/** The reads in one artifact, in order (the plan items print one each; a hand-made file may hold several). */
export interface ConntrackStats {
  reads: ConntrackStatsRead[]
}

const STATS_LINE = /^cpu=(\d+)\s+(.*)$/

/**
 * Parses `conntrack -S` reads, each optionally after a CONNTRACK_STATS_STAMP line (a stamp starts a new read). The
 * global form some versions print without per-CPU support (`entries N` lines) is not accepted. Throws ParseError
 * naming the first line that is neither a CPU line, a stamp nor blank.
 */
export function parseConntrackStats(text: string): ConntrackStats {
  const reads: ConntrackStatsRead[] = [{cpus: []}]
  text.split(/\r?\n/).forEach((raw, idx) => {
    const line = raw.trim()
    if (line === '') return
    if (line.startsWith(CONNTRACK_STATS_STAMP)) {
      const up = Number(line.slice(CONNTRACK_STATS_STAMP.length).trim())
      if (!Number.isFinite(up)) throw new ParseError(`not an uptime: ${JSON.stringify(line.slice(0, 60))}`, idx + 1)
      const cur = reads.at(-1)!
      if (cur.cpus.length > 0 || cur.uptime !== undefined) reads.push({uptime: up, cpus: []})
      else cur.uptime = up
      return
    }
    const m = STATS_LINE.exec(line)
    if (!m) throw new ParseError(`not a conntrack -S line (expected "cpu=N key=value ..."): ${JSON.stringify(line.slice(0, 60))}`, idx + 1)
    const counters: Record<string, number> = Object.create(null) as Record<string, number>
    for (const w of (m[2] ?? '').split(/\s+/)) {
      if (w === '') continue
      const kv = /^([a-z_]+)=(\d+)$/.exec(w)
      if (!kv) throw new ParseError(`unexpected word ${JSON.stringify(w)} in a conntrack -S line`, idx + 1)
      counters[kv[1] ?? ''] = Number(kv[2])
    }
    reads.at(-1)!.cpus.push({cpu: Number(m[1]), counters, line: idx + 1})
  })
  const filled = reads.filter((r) => r.cpus.length > 0)
  if (filled.length === 0 && text.trim() !== '') throw new ParseError('no conntrack -S CPU lines', 1)
  return {reads: filled}
}

/** A counter summed over the CPUs of one read; undefined when no CPU line has it. */
export function conntrackCounterTotal(read: ConntrackStatsRead, counter: string): number | undefined {
  let total: number | undefined
  for (const c of read.cpus) {
    const v = c.counters[counter]
    if (v !== undefined) total = (total ?? 0) + v
  }
  return total
}
