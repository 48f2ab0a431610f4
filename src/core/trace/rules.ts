// What the walk reads: tables of chains of rules, each rule with its text (`-A CHAIN ...`), its line and its
// structure. A node's iptables-save dump is one source (dumpTraceRules); the expected state of a generated ruleset
// is another (expected.ts), read from the model instead of being printed as iptables-save text and parsed back.
import type {IpFamily} from '../net/ip.js'
import type {ParsedRule} from '../iptables/rule.js'
import {type IptablesDump, findTable} from '../iptables/save.js'

export interface TraceRule {
  /** The rule as printed, `-A CHAIN ...`. */
  readonly text: string
  /** 1-based line in the dump (named in notes about rules that cannot be parsed). */
  readonly line: number
  /** Generic options, matches and target; may throw ParseError. */
  readonly parsed: ParsedRule
}

export interface TraceChain {
  /** ACCEPT/DROP for built-in chains, null for user chains. */
  readonly policy: string | null
  eachRule(): Iterable<TraceRule>
}

export interface TraceTable {
  chain(name: string): TraceChain | undefined
}

export interface TraceRules {
  readonly family: IpFamily
  table(name: 'nat' | 'filter'): TraceTable | undefined
}

/** A parsed iptables-save dump as trace rules. */
export function dumpTraceRules(dump: IptablesDump): TraceRules {
  return {family: dump.family, table: (name) => findTable(dump, name)}
}
