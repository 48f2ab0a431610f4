// What `iptables-save` prints back for a rule given to iptables-restore, reproduced from the iptables 1.8 save
// paths (xshared save_rule_details, libxt_*.c) and checked rule by rule against the real binaries
// (test/integration/iptables/canonical.test.ts). Saved text is a fixed point: canonicalising it changes nothing.
import {ParseError} from '../../errors.js'
import {canonicalAddress} from '../net/inet.js'
import type {IpFamily} from '../net/ip.js'
import {canonicalMatchOptions} from './canonical-matches.js'
import {protocolName} from './canonical-options.js'
import {canonicalTargetOptions} from './canonical-targets.js'
import {type ParsedRule, parseRuleArgs} from './rule.js'

// The per-module printing is split out: canonical-matches.ts, canonical-targets.ts (option helpers in
// canonical-options.ts); savedProbability is re-exported from there for its callers.
export {savedProbability} from './canonical-matches.js'

/**
 * Canonicalises one rule's arguments. `tokens` may start with `-A CHAIN` (kept in the output) or be the bare
 * arguments. Modules node-doctor does not know keep their options verbatim. Throws ParseError for arguments
 * iptables would refuse, or that it would expand into several rules (`-s a,b`).
 */
export function canonicalizeRule(tokens: readonly string[], family: IpFamily): string[] {
  let head: string[] = []
  let args = tokens
  if ((tokens[0] === '-A' || tokens[0] === '--append') && tokens.length >= 2) {
    head = ['-A', tokens[1] as string]
    args = tokens.slice(2)
  }
  return [...head, ...formatParsedRule(canonicalizeParsedRule(parseRuleArgs(args), family))]
}

/** Turns a (canonical) parsed rule back into argument tokens in iptables-save order. */
export function formatParsedRule(rule: ParsedRule): string[] {
  const out: string[] = []
  const generic = (flag: string, v: {value: string; negated: boolean} | null): void => {
    if (!v) return
    if (v.negated) out.push('!')
    out.push(flag, v.value)
  }
  generic('-s', rule.source)
  generic('-d', rule.destination)
  generic('-i', rule.inInterface)
  generic('-o', rule.outInterface)
  generic('-p', rule.protocol)
  if (rule.fragment) {
    if (rule.fragment.negated) out.push('!')
    out.push('-f')
  }
  for (const m of rule.matches) out.push('-m', m.name, ...m.options)
  if (rule.target) out.push(rule.target.goto ? '-g' : '-j', rule.target.name, ...rule.target.options)
  return out
}

/** The canonical form of an already parsed rule (a new object; the input is not modified). */
export function canonicalizeParsedRule(rule: ParsedRule, family: IpFamily): ParsedRule {
  const addr = (v: ParsedRule['source'], flag: string): ParsedRule['source'] => {
    if (!v) return null
    if (v.value.includes(',')) throw new ParseError(`${flag} ${v.value}: several addresses make iptables add one rule per address`)
    const c = canonicalAddress(v.value, family)
    if (!c) return {...v}
    if (c.any && !v.negated) return null
    return {value: c.text, negated: v.negated}
  }
  let protocol: ParsedRule['protocol'] = null
  if (rule.protocol) {
    const name = protocolName(rule.protocol.value)
    protocol = name === 'all' && !rule.protocol.negated ? null : {value: name, negated: rule.protocol.negated}
  }
  return {
    source: addr(rule.source, '-s'),
    destination: addr(rule.destination, '-d'),
    inInterface: rule.inInterface ? {...rule.inInterface} : null,
    outInterface: rule.outInterface ? {...rule.outInterface} : null,
    protocol,
    fragment: rule.fragment ? {...rule.fragment} : null,
    matches: rule.matches.map((m) => ({name: m.name, options: canonicalMatchOptions(m, family)})),
    target: rule.target ? {...rule.target, options: canonicalTargetOptions(rule.target, family)} : null,
  }
}
