// Parser for the neighbour (ARP/NDP) table: `ip -j neigh show` JSON (what the collection plan runs) and the
// `ip neigh show` text form (pasted input). One model for both. Formats checked against iproute2 6.1 output
// captured in a network namespace (test/fixtures/parse/neigh).
import {ParseError} from '../../errors.js'
import {ordered} from './key-order.js'
import {parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export type NeighFormat = 'ip-json' | 'ip-text'

export interface NeighEntry {
  family: 'inet' | 'inet6'
  /** The neighbour's IP address. */
  dst: string
  dev: string
  /** Link-layer address; absent for FAILED/INCOMPLETE entries. */
  lladdr?: string
  /** NUD states as printed, upper case: PERMANENT, REACHABLE, STALE, FAILED, NOARP, ... */
  state: string[]
  router?: boolean
  proxy?: boolean
}

export interface NeighTable {
  format: NeighFormat
  entries: NeighEntry[]
}

const EXPECTED = 'a neighbour table (`ip -j neigh show` or `ip neigh show`)'
const KEYS: ReadonlyArray<keyof NeighEntry> = ['family', 'dst', 'dev', 'lladdr', 'state', 'router', 'proxy']
const MAC = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5,19}$/
const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*)$/
// Flags `ip neigh` prints between the lladdr and the states.
const TEXT_FLAGS = new Set(['router', 'proxy', 'extern_learn', 'offload', 'managed'])

const familyOf = (ip: string): NeighEntry['family'] => (ip.includes(':') ? 'inet6' : 'inet')

/** Parses `ip -j neigh` JSON or `ip neigh` text. Throws ParseError(detail, line) on anything else. */
export function parseNeigh(text: string): NeighTable {
  const lines = splitInputLines(text, EXPECTED)
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (t.startsWith('[') || t.startsWith('{')) return {format: 'ip-json', entries: parseJson(text)}
  const entries: NeighEntry[] = []
  for (const l of lines) {
    const tok = l.text.trim().split(/\s+/)
    if (tok[0] === '' || tok[0] === undefined) continue
    if (!IP.test(tok[0]) || tok[1] !== 'dev' || tok[2] === undefined) {
      if (entries.length === 0) throw wrongArtifact(text, EXPECTED, l.n)
      throw new ParseError(`not a neighbour entry: "${l.text.trim().slice(0, 80)}"`, l.n)
    }
    const e: NeighEntry = {family: familyOf(tok[0]), dst: tok[0], dev: tok[2], state: []}
    for (let i = 3; i < tok.length; i++) {
      const w = tok[i]!
      if (w === 'lladdr') {
        const mac = tok[++i]
        if (mac === undefined || !MAC.test(mac)) throw new ParseError(`lladdr without a link-layer address`, l.n)
        e.lladdr = mac.toLowerCase()
      } else if (w === 'router') e.router = true
      else if (w === 'proxy') e.proxy = true
      else if (TEXT_FLAGS.has(w)) continue
      else if (/^[A-Z_]+$/.test(w)) e.state.push(w)
      // `probes N` and `vlan N`-style details of `-s`/`-d` output are not needed.
      else if (/^\d+$/.test(w) || /^\d+\/\d+\/\d+$/.test(w) || w === 'probes' || w === 'ref' || w === 'used') continue
      else throw new ParseError(`unexpected "${w}" in a neighbour entry`, l.n)
    }
    entries.push(ordered(e, KEYS))
  }
  return {format: 'ip-text', entries}
}

function parseJson(text: string): NeighEntry[] {
  const json = parseJsonText(text, EXPECTED)
  if (!Array.isArray(json)) throw wrongArtifact(text, EXPECTED)
  return json.map((raw, i) => {
    const o = raw as Record<string, unknown>
    if (typeof o !== 'object' || o === null || typeof o.dst !== 'string' || typeof o.dev !== 'string') {
      throw new ParseError(`element ${i} is not a neighbour entry (needs "dst" and "dev"): expected ${EXPECTED}`, 1)
    }
    const e: NeighEntry = {family: familyOf(o.dst), dst: o.dst, dev: o.dev, state: Array.isArray(o.state) ? o.state.map(String) : []}
    if (typeof o.lladdr === 'string') e.lladdr = o.lladdr.toLowerCase()
    // iproute2 prints flags as keys with a null value: {"router":null}.
    if ('router' in o) e.router = true
    if ('proxy' in o) e.proxy = true
    return ordered(e, KEYS)
  })
}

/** The entries on `dev` for `dst`. */
export function neighboursOf(table: NeighTable, dev: string, dst: string): NeighEntry[] {
  return table.entries.filter((e) => e.dev === dev && e.dst === dst)
}

/** Whether an entry resolves to a link-layer address (not FAILED or INCOMPLETE). */
export function isResolved(e: NeighEntry): boolean {
  return e.lladdr !== undefined && !e.state.includes('FAILED') && !e.state.includes('INCOMPLETE')
}
