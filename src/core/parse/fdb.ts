// Parser for the bridge forwarding database: `bridge -j fdb show` JSON (what the collection plan runs) and the
// `bridge fdb show` text form (pasted input). VXLAN devices keep their remote VTEPs here (`MAC dev flannel.1 dst IP
// self permanent`). Formats checked against iproute2 6.1 output captured in a network namespace (test/fixtures/parse/fdb).
import {ParseError} from '../../errors.js'
import {ordered} from './key-order.js'
import {parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export type FdbFormat = 'bridge-json' | 'bridge-text'

export interface FdbEntry {
  mac: string
  dev: string
  /** Remote VTEP (VXLAN devices). */
  dst?: string
  vlan?: number
  vni?: number
  port?: number
  master?: string
  /** self, master, extern_learn, offload, sticky, ... */
  flags: string[]
  /** permanent, static, or absent for learned entries. */
  state?: string
}

export interface FdbTable {
  format: FdbFormat
  entries: FdbEntry[]
}

const EXPECTED = 'a bridge forwarding database (`bridge -j fdb show` or `bridge fdb show`)'
const KEYS: ReadonlyArray<keyof FdbEntry> = ['mac', 'dev', 'dst', 'vlan', 'vni', 'port', 'master', 'flags', 'state']
const MAC = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/
const FLAGS = new Set(['self', 'master', 'router', 'extern_learn', 'offload', 'sticky', 'locked'])
const STATES = new Set(['permanent', 'static', 'stale', 'dynamic'])
const NUMERIC = {vlan: 'vlan', vni: 'vni', port: 'port'} as const

/** Parses `bridge -j fdb` JSON or `bridge fdb` text. Throws ParseError(detail, line) on anything else. */
export function parseFdb(text: string): FdbTable {
  const lines = splitInputLines(text, EXPECTED)
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (t.startsWith('[') || t.startsWith('{')) return {format: 'bridge-json', entries: parseJson(text)}
  const entries: FdbEntry[] = []
  for (const l of lines) {
    const tok = l.text.trim().split(/\s+/)
    if (tok[0] === '' || tok[0] === undefined) continue
    if (!MAC.test(tok[0]) || tok[1] !== 'dev' || tok[2] === undefined) {
      if (entries.length === 0) throw wrongArtifact(text, EXPECTED, l.n)
      throw new ParseError(`not a forwarding database entry: "${l.text.trim().slice(0, 80)}"`, l.n)
    }
    const e: FdbEntry = {mac: tok[0].toLowerCase(), dev: tok[2], flags: []}
    for (let i = 3; i < tok.length; i++) {
      const w = tok[i]!
      if (w === 'dst' || w === 'master' || w === 'via' || w === 'src_vni' || w === 'nhid') {
        const v = tok[++i]
        if (v === undefined) throw new ParseError(`"${w}" without a value`, l.n)
        if (w === 'dst') e.dst = v
        else if (w === 'master') e.master = v
      } else if (w === 'vlan' || w === 'vni' || w === 'port') {
        const v = Number(tok[++i])
        if (!Number.isInteger(v)) throw new ParseError(`"${w}" without a number`, l.n)
        e[NUMERIC[w]] = v
      } else if (FLAGS.has(w)) e.flags.push(w)
      else if (STATES.has(w)) e.state = w
      else throw new ParseError(`unexpected "${w}" in a forwarding database entry`, l.n)
    }
    entries.push(ordered(e, KEYS))
  }
  return {format: 'bridge-text', entries}
}

function parseJson(text: string): FdbEntry[] {
  const json = parseJsonText(text, EXPECTED)
  if (!Array.isArray(json)) throw wrongArtifact(text, EXPECTED)
  return json.map((raw, i) => {
    const o = raw as Record<string, unknown>
    if (typeof o !== 'object' || o === null || typeof o.mac !== 'string' || typeof o.ifname !== 'string') {
      throw new ParseError(`element ${i} is not a forwarding database entry (needs "mac" and "ifname"): expected ${EXPECTED}`, 1)
    }
    const e: FdbEntry = {mac: o.mac.toLowerCase(), dev: o.ifname, flags: Array.isArray(o.flags) ? o.flags.map(String) : []}
    if (typeof o.dst === 'string') e.dst = o.dst
    for (const k of ['vlan', 'vni', 'port'] as const) if (typeof o[k] === 'number') e[k] = o[k]
    if (typeof o.master === 'string') e.master = o.master
    if (typeof o.state === 'string' && o.state !== '') e.state = o.state
    return ordered(e, KEYS)
  })
}

/** The entries on `dev` for `mac` (any case). */
export function fdbEntriesOf(table: FdbTable, dev: string, mac: string): FdbEntry[] {
  const m = mac.toLowerCase()
  return table.entries.filter((e) => e.dev === dev && e.mac === m)
}
