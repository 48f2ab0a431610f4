// Parser for ipset state: `ipset save` (create/add lines, ipset 6+) and `ipset list` (Name:/Type:/Header:/Members:
// blocks). Both land in one model: sets with their type, family and members. Members keep ipset's text; `entryKey`
// gives the canonical form the IPVS diff compares (ipset prints a host net without its /32 or /128).
import {ParseError} from '../../errors.js'
import {parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'
import {type InputLine, splitInputLines, wrongArtifact} from './sniff.js'

export type IpsetFormat = 'save' | 'list'

export interface IpsetMember {
  /** The member as ipset printed it (first token; options such as `timeout 10` or `comment "x"` are dropped). */
  text: string
  line: number
}

export interface IpsetSet {
  name: string
  /** `hash:ip,port`, `bitmap:port`, ... */
  type: string
  /** `inet` / `inet6` from the header (hash types); absent for bitmap and list sets. */
  family?: 'inet' | 'inet6'
  /** The creation options as printed (`family inet hashsize 1024 maxelem 65536 ...`, `range 0-65535`). */
  header: string
  members: IpsetMember[]
  line: number
}

export interface IpsetTable {
  format: IpsetFormat
  /** In input order. */
  sets: IpsetSet[]
}

const EXPECTED = 'ipset output (`ipset save` or `ipset list`)'
const SET_NAME = /^[^\s]{1,31}$/
const CANONICAL_V4 = /^\d+(\.\d+){3}(,[a-z]+:\d+)?(,\d+(\.\d+){3}(\/\d+)?)?$|^\d+$/
const LEADING_ZERO = /(^|[.,:/])0\d/
const SET_TYPE = /^(hash|bitmap|list):(ip|port|net|mac|iface|mark|set)(,(ip|port|net|mac|iface|mark|set))*$/

/** Parses `ipset save` or `ipset list` output. Throws ParseError(detail, line) on anything it cannot read. */
export function parseIpset(text: string): IpsetTable {
  const lines = splitInputLines(text, EXPECTED)
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (/^(create|add)\s/.test(t)) return {format: 'save', sets: parseSave(lines)}
  if (/^Name:\s/.test(t)) return {format: 'list', sets: parseList(lines)}
  throw wrongArtifact(text, EXPECTED, first.n)
}

function parseSave(lines: readonly InputLine[]): IpsetSet[] {
  const sets = new Map<string, IpsetSet>()
  for (const {n, text} of lines) {
    const t = text.trim()
    if (t === '' || t.startsWith('#')) continue
    const words = t.split(/\s+/)
    const op = words[0]!
    if (op === 'create') {
      const name = words[1]
      const type = words[2]
      if (name === undefined || type === undefined) throw new ParseError('`create` needs a set name and a type', n)
      checkName(name, n)
      if (!SET_TYPE.test(type)) throw new ParseError(`"${type.slice(0, 30)}" is not an ipset type (hash:..., bitmap:... or list:set)`, n)
      if (sets.has(name)) throw new ParseError(`set ${name} is created twice`, n)
      const header = words.slice(3).join(' ')
      sets.set(name, withFamily({name, type, header, members: [], line: n}))
    } else if (op === 'add') {
      const name = words[1]
      const member = words[2]
      if (name === undefined || member === undefined) throw new ParseError('`add` needs a set name and a member', n)
      const set = sets.get(name)
      if (!set) throw new ParseError(`member added to set ${name.slice(0, 40)}, which was not created before`, n)
      set.members.push({text: member, line: n})
    } else {
      throw new ParseError(`unexpected "${op.slice(0, 30)}": \`ipset save\` lines start with create or add`, n)
    }
  }
  return [...sets.values()]
}

function parseList(lines: readonly InputLine[]): IpsetSet[] {
  const sets: IpsetSet[] = []
  let cur: IpsetSet | undefined
  let inMembers = false
  const finish = (n: number) => {
    if (cur && cur.type === '') throw new ParseError(`set ${cur.name} has no Type: line`, n)
  }
  for (const {n, text} of lines) {
    const t = text.trim()
    if (t === '') {
      inMembers = false
      continue
    }
    const m = /^([A-Za-z][A-Za-z ]*):\s*(.*)$/.exec(t)
    if (inMembers && !(m && m[1] === 'Name')) {
      cur!.members.push({text: t.split(/\s+/)[0]!, line: n})
      continue
    }
    if (!m) throw new ParseError(`unexpected "${t.slice(0, 40)}": expected a "Key: value" line of \`ipset list\``, n)
    const key = m[1]!
    const value = m[2]!.trim()
    if (key === 'Name') {
      finish(n)
      checkName(value, n)
      cur = {name: value, type: '', header: '', members: [], line: n}
      sets.push(cur)
      inMembers = false
      continue
    }
    if (!cur) throw new ParseError(`"${key}:" before the first "Name:" line`, n)
    switch (key) {
      case 'Type':
        if (!SET_TYPE.test(value)) throw new ParseError(`"${value.slice(0, 30)}" is not an ipset type`, n)
        cur.type = value
        break
      case 'Header':
        cur.header = value
        Object.assign(cur, withFamily(cur))
        break
      case 'Members':
        inMembers = true
        break
      case 'Revision':
      case 'Size in memory':
      case 'References':
      case 'Number of entries':
        break
      default:
        throw new ParseError(`unknown \`ipset list\` field "${key.slice(0, 30)}"`, n)
    }
  }
  finish(lines.length)
  return sets
}

function checkName(name: string, n: number): void {
  if (!SET_NAME.test(name)) throw new ParseError(`"${name.slice(0, 40)}" is not a set name (at most 31 characters, no blanks)`, n)
}

function withFamily(set: IpsetSet): IpsetSet {
  const fam = /(?:^|\s)family (inet6?)(?:\s|$)/.exec(set.header)
  if (fam) set.family = fam[1] as 'inet' | 'inet6'
  return set
}

/**
 * The canonical form of a member for comparison: IPs in Go's canonical text, protocols in lower case, host nets
 * without their /32 or /128 (as ipset prints them), other nets masked. Unrecognised parts are kept as they are.
 */
export function entryKey(member: string): string {
  // Fast path: IPv4 members as ipset prints them (no host prefix, no leading zeros) are already canonical.
  if (CANONICAL_V4.test(member) && !member.includes('/32') && !LEADING_ZERO.test(member)) return member
  return member
    .split(',')
    .map((part) => {
      const proto = /^([A-Za-z0-9-]+):(\d+)$/.exec(part)
      if (proto) return `${proto[1]!.toLowerCase()}:${Number(proto[2])}`
      if (part.includes('/')) {
        const cidr = parseCIDRSloppy(part)
        if (!cidr) return part
        const host = cidr.family === 'ipv4' ? 32 : 128
        return cidr.prefix === host ? cidr.text.slice(0, cidr.text.lastIndexOf('/')) : cidr.text
      }
      if (/^\d+$/.test(part)) return String(Number(part))
      return parseIPSloppy(part)?.text ?? part
    })
    .join(',')
}
