// The expected `table ip|ip6 kube-proxy` and its text in `nft list table` syntax: the exact form nft 1.0.x prints
// (so `nft -f` loads it as printed, and listing it back gives the same text apart from element order, handles and
// named priorities). Sets and maps first, then chains, as nft lists them.
import {formatNftTime} from '../../parse/nft.js'

export type NftProxyFamily = 'ip' | 'ip6'

/** Which of kube-proxy's table layouts a version programs (see generate.ts). */
export type NftLayout = 'v1.29' | 'v1.31' | 'v1.34'

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

export interface NftExpectedTable {
  family: NftProxyFamily
  name: string
  comment: string
  /** `v1.MINOR` of the kube-proxy whose output this is. */
  version: string
  layout: NftLayout
  sets: NftExpectedSet[]
  chains: NftExpectedChain[]
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
  const out: string[] = [`table ${t.family} ${t.name} {`, `\tcomment ${quote(t.comment)}`]
  const blocks: string[][] = []
  for (const s of t.sets) {
    const b = [`\t${s.kind} ${s.name} {`, `\t\ttype ${s.type}${s.kind === 'map' ? ' : verdict' : ''}`]
    if (s.size !== undefined) b.push(`\t\tsize ${s.size}`)
    if (s.flags && s.flags.length > 0) b.push(`\t\tflags ${s.flags.join(',')}`)
    if (s.timeout !== undefined) b.push(`\t\ttimeout ${formatNftTime(s.timeout)}`)
    if (s.comment !== undefined) b.push(`\t\tcomment ${quote(s.comment)}`)
    if (s.elements.length > 0) b.push(`\t\telements = { ${s.elements.map((e) => elementText(s, e)).join(',\n\t\t\t     ')} }`)
    b.push('\t}')
    blocks.push(b)
  }
  for (const c of t.chains) {
    const b = [`\tchain ${c.name} {`]
    if (c.comment !== undefined) b.push(`\t\tcomment ${quote(c.comment)}`)
    if (c.base) b.push(`\t\ttype ${c.base.type} hook ${c.base.hook} priority ${c.base.priority}; policy accept;`)
    for (const r of c.rules) b.push(`\t\t${r.text}`)
    b.push('\t}')
    blocks.push(b)
  }
  blocks.forEach((b, i) => {
    if (i > 0) out.push('')
    out.push(...b)
  })
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
