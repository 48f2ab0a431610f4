// The walk's internal state: one packet branch (State), the per-table context (Ctx) and the cached rules.
import {type Addr, type AddrMatcher, addrIn, isLoopbackAddr} from '../net/addr.js'
import type {IpFamily} from '../net/ip.js'
import type {ParsedRule} from '../iptables/rule.js'
import type {TraceRule, TraceTable} from './rules.js'
import type {TraceNode, TracePacket, TraceStep, TraceVerdict} from './types.js'

export type Hook = 'PREROUTING' | 'INPUT' | 'FORWARD' | 'OUTPUT' | 'POSTROUTING'

export interface State {
  probability: number
  mark: number
  path: TraceStep[]
  dst: Addr
  dport: number
  dnat?: string
  /** conntrack's virtual DNAT state: set once the destination was rewritten. */
  ctDnat: boolean
  masquerade: boolean
  verdict: TraceVerdict
  policy?: string
  /** A DROP/REJECT ended the packet: later phases are skipped. */
  done: boolean
}

export type Exit =
  | {kind: 'return'; st: State}
  | {kind: 'terminal'; st: State; target: string; rule: ParsedRule}

export type Eval = {kind: 'no'} | {kind: 'yes'; p: number; assumptions: string[]}

export interface CachedRule {
  rule: TraceRule
  /** Parsed on first use; null when the rule could not be parsed. */
  parsed?: ParsedRule | null
  /** The rule's `[!] -d` read from its text without parsing, when it is plainly there; lets walks skip most rules. */
  dstHint: {matcher: AddrMatcher; negated: boolean} | null
}

export interface Ctx {
  table: TraceTable
  tableName: 'nat' | 'filter'
  hook: Hook
  packet: TracePacket
  src: Addr | undefined
  srcIsLocalPod: boolean
  podInterface: TraceNode['podInterface']
  routeDevice: TraceNode['routeDevice']
  family: IpFamily
  local: AddrMatcher[]
  notes: Set<string>
  cache: Map<string, CachedRule[]>
  addrCache: Map<string, AddrMatcher | null>
  /** Scratch list of the assumptions made while evaluating the current rule. */
  assumed: string[]
}

export function isLocalAddr(ctx: Pick<Ctx, 'local'>, a: Addr): boolean {
  return isLoopbackAddr(a) || ctx.local.some((m) => addrIn(a, m))
}
