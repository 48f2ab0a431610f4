// The expected `table ip|ip6 kube-proxy` and its text in `nft list table` syntax: the exact form nft 1.0.x prints
// (so `nft -f` loads it as printed, and listing it back gives the same text apart from element order, handles and
// named priorities). Sets and maps first, then chains, as nft lists them.
import {formatNftTime} from '../../parse/nft.js'

export type NftProxyFamily = 'ip' | 'ip6'

/** Which of kube-proxy's table layouts a version programs (see generate.ts). */
export type NftLayout = 'v1.29' | 'v1.31' | 'v1.34' | 'v1.36' | 'v1.37'

/** The layouts, oldest first. */
export const NFT_LAYOUTS: readonly NftLayout[] = ['v1.29', 'v1.31', 'v1.34', 'v1.36', 'v1.37']

/** layout >= min. */
export function nftLayoutAtLeast(layout: NftLayout, min: NftLayout): boolean {
  return NFT_LAYOUTS.indexOf(layout) >= NFT_LAYOUTS.indexOf(min)
}

export interface NftExpectedRule {
  /** The rule as `nft list` prints it (no counters, no handle). */
  text: string
  /** Service-port name (`ns/svc[:port]`) the rule belongs to; absent for the table's fixed rules. */
  servicePort?: string
}

export interface NftBaseChain {
  type: 'filter' | 'nat'
  hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting'
  priority: number
}

export interface NftExpectedChain {
  name: string
  base?: NftBaseChain
  comment?: string
  rules: NftExpectedRule[]
  servicePort?: string
}

export interface NftExpectedElement {
  /** As nft prints it: `172.30.0.41 . tcp . 80`. */
  key: string
  /** Maps: the verdict, e.g. `goto service-…`, `drop`. */
  value?: string
  comment?: string
  servicePort?: string
}

export interface NftExpectedSet {
  kind: 'set' | 'map'
  name: string
  /** Key type; maps add ` : verdict` when printed. */
  type: string
  flags?: string[]
  /** Seconds. */
  timeout?: number
  /** Dynamic sets: nft prints the kernel's default size. */
  size?: number
  comment?: string
  /** Filled by the packet path (affinity sets): elements are runtime state, never compared. */
  dynamic?: boolean
  elements: NftExpectedElement[]
  servicePort?: string
}

/** A named counter (`add counter …`): kube-proxy's v1.37 localhost-NodePort reject counter. */
export interface NftExpectedCounter {
  name: string
  servicePort?: string
}

export interface NftExpectedTable {
  family: NftProxyFamily
  name: string
  comment: string
  /** `v1.MINOR` of the kube-proxy whose output this is. */
  version: string
  layout: NftLayout
  sets: NftExpectedSet[]
  chains: NftExpectedChain[]
  /** Named counters; absent when there are none (the diff does not compare them: their values are runtime state). */
  counters?: NftExpectedCounter[]
  /** `#` lines printed before the table (e.g. that the version is newer than the newest layout known). */
  headerComments?: string[]
}

function quote(s: string): string {
  return `"${s.replace(/(["\\])/g, '\\$1')}"`
}

function elementText(set: NftExpectedSet, e: NftExpectedElement): string {
  const comment = e.comment !== undefined ? ` comment ${quote(e.comment)}` : ''
  return set.kind === 'map' ? `${e.key}${comment} : ${e.value ?? ''}` : `${e.key}${comment}`
}

/** The table in `nft list table` syntax, loadable with `nft -f` as printed. */
export function serializeNftTable(t: NftExpectedTable): string {
  // Straight into one list of lines: a large table has 100k blocks, too many to build and copy as arrays first.
  const out: string[] = [...(t.headerComments ?? []).map((c) => `# ${c}`), `table ${t.family} ${t.name} {`, `\tcomment ${quote(t.comment)}`]
  let first = true
  const open = (line: string) => {
    if (!first) out.push('')
    first = false
    out.push(line)
  }
  for (const s of t.sets) {
    open(`\t${s.kind} ${s.name} {`)
    out.push(`\t\ttype ${s.type}${s.kind === 'map' ? ' : verdict' : ''}`)
    if (s.size !== undefined) out.push(`\t\tsize ${s.size}`)
    if (s.flags && s.flags.length > 0) out.push(`\t\tflags ${s.flags.join(',')}`)
    if (s.timeout !== undefined) out.push(`\t\ttimeout ${formatNftTime(s.timeout)}`)
    if (s.comment !== undefined) out.push(`\t\tcomment ${quote(s.comment)}`)
    if (s.elements.length > 0) out.push(`\t\telements = { ${s.elements.map((e) => elementText(s, e)).join(',\n\t\t\t     ')} }`)
    out.push('\t}')
  }
  for (const c of t.counters ?? []) {
    open(`\tcounter ${c.name} {`)
    out.push('\t\tpackets 0 bytes 0', '\t}')
  }
  for (const c of t.chains) {
    open(`\tchain ${c.name} {`)
    if (c.comment !== undefined) out.push(`\t\tcomment ${quote(c.comment)}`)
    if (c.base) out.push(`\t\ttype ${c.base.type} hook ${c.base.hook} priority ${c.base.priority}; policy accept;`)
    for (const r of c.rules) out.push(`\t\t${r.text}`)
    out.push('\t}')
  }
  out.push('}', '')
  return out.join('\n')
}

/** Rule and element counts, for summaries and the benchmark. */
export function nftTableStats(t: NftExpectedTable): {chains: number; rules: number; sets: number; elements: number} {
  let rules = 0
  let elements = 0
  for (const c of t.chains) rules += c.rules.length
  for (const s of t.sets) elements += s.elements.length
  return {chains: t.chains.length, rules, sets: t.sets.length, elements}
}
