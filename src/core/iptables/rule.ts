// The structure of one rule's arguments: the generic options (-s -d -i -o -p -f), the matches in order and the
// target. Options are assigned to matches the way iptables' command parser does it, including the implicit
// protocol match that `-p tcp --dport 80` loads.
import {ParseError} from '../../errors.js'

export interface NegatableValue {
  value: string
  negated: boolean
}

export interface RuleMatch {
  /** Module name as given to `-m` (`comment`, `tcp`, `statistic`, ...). */
  name: string
  /** The match's option tokens in order, a negation as a separate `!` token before its option. */
  options: string[]
}

export interface RuleTarget {
  /** A chain name or a target extension (`DNAT`, `MARK`, `REJECT`, `ACCEPT`, ...). */
  name: string
  /** True for `-g` (goto), false for `-j`. */
  goto: boolean
  options: string[]
}

export interface ParsedRule {
  source: NegatableValue | null
  destination: NegatableValue | null
  inInterface: NegatableValue | null
  outInterface: NegatableValue | null
  protocol: NegatableValue | null
  /** `-f` (IPv4 only): `{negated}` when present. */
  fragment: {negated: boolean} | null
  matches: RuleMatch[]
  /** Null for a rule without `-j`/`-g` (kube-proxy's comment-only KUBE-FW rule). */
  target: RuleTarget | null
}

/** Option name → number of value tokens, for the modules node-doctor knows. */
type OptionTable = Readonly<Record<string, number>>

const PORTS: OptionTable = {'--sport': 1, '--source-port': 1, '--dport': 1, '--destination-port': 1}

export const MATCH_OPTIONS: Readonly<Record<string, OptionTable>> = {
  comment: {'--comment': 1},
  tcp: {...PORTS, '--tcp-flags': 2, '--syn': 0, '--tcp-option': 1},
  udp: PORTS,
  udplite: PORTS,
  sctp: {...PORTS, '--chunk-types': 2},
  statistic: {'--mode': 1, '--probability': 1, '--every': 1, '--packet': 1},
  recent: {
    '--set': 0,
    '--rcheck': 0,
    '--update': 0,
    '--remove': 0,
    '--seconds': 1,
    '--reap': 0,
    '--hitcount': 1,
    '--rttl': 0,
    '--name': 1,
    '--mask': 1,
    '--rsource': 0,
    '--rdest': 0,
  },
  mark: {'--mark': 1},
  conntrack: {
    '--ctstate': 1,
    '--ctproto': 1,
    '--ctorigsrc': 1,
    '--ctorigdst': 1,
    '--ctreplsrc': 1,
    '--ctrepldst': 1,
    '--ctorigsrcport': 1,
    '--ctorigdstport': 1,
    '--ctreplsrcport': 1,
    '--ctrepldstport': 1,
    '--ctstatus': 1,
    '--ctexpire': 1,
    '--ctdir': 1,
  },
  state: {'--state': 1},
  addrtype: {'--src-type': 1, '--dst-type': 1, '--limit-iface-in': 0, '--limit-iface-out': 0},
  nfacct: {'--nfacct-name': 1},
  multiport: {'--sports': 1, '--source-ports': 1, '--dports': 1, '--destination-ports': 1, '--ports': 1},
  icmp: {'--icmp-type': 1},
  icmp6: {'--icmpv6-type': 1},
  set: {
    '--match-set': 2,
    '--return-nomatch': 0,
    '--update-counters': 0,
    '--update-subcounters': 0,
    '--packets-eq': 1,
    '--packets-lt': 1,
    '--packets-gt': 1,
    '--bytes-eq': 1,
    '--bytes-lt': 1,
    '--bytes-gt': 1,
  },
  physdev: {
    '--physdev-in': 1,
    '--physdev-out': 1,
    '--physdev-is-in': 0,
    '--physdev-is-out': 0,
    '--physdev-is-bridged': 0,
  },
  limit: {'--limit': 1, '--limit-burst': 1},
}

const NAT_FLAGS = {'--random': 0, '--random-fully': 0, '--persistent': 0}

export const TARGET_OPTIONS: Readonly<Record<string, OptionTable>> = {
  DNAT: {'--to-destination': 1, ...NAT_FLAGS},
  SNAT: {'--to-source': 1, ...NAT_FLAGS},
  MASQUERADE: {'--to-ports': 1, '--random': 0, '--random-fully': 0},
  REDIRECT: {'--to-ports': 1, '--random': 0},
  MARK: {'--set-xmark': 1, '--set-mark': 1, '--and-mark': 1, '--or-mark': 1, '--xor-mark': 1},
  CONNMARK: {
    '--set-xmark': 1,
    '--set-mark': 1,
    '--save-mark': 0,
    '--restore-mark': 0,
    '--and-mark': 1,
    '--or-mark': 1,
    '--xor-mark': 1,
    '--nfmask': 1,
    '--ctmask': 1,
    '--mask': 1,
  },
  REJECT: {'--reject-with': 1},
  LOG: {
    '--log-level': 1,
    '--log-prefix': 1,
    '--log-tcp-sequence': 0,
    '--log-tcp-options': 0,
    '--log-ip-options': 0,
    '--log-uid': 0,
    '--log-macdecode': 0,
  },
  NFLOG: {'--nflog-group': 1, '--nflog-prefix': 1, '--nflog-range': 1, '--nflog-size': 1, '--nflog-threshold': 1},
}

const IMPLICIT_PROTOCOL_MATCHES = new Set(['tcp', 'udp', 'udplite', 'sctp', 'icmp', 'icmp6'])

interface Owner {
  options: string[]
  table: OptionTable | undefined
}

function takeValue(args: readonly string[], i: number, option: string): string {
  const v = args[i]
  if (v === undefined) throw new ParseError(`option ${option} needs a value`)
  return v
}

/** A token that starts another option (`-x`, `--xyz`) rather than being a value. */
function isOptionToken(t: string): boolean {
  return t.length > 1 && t.charCodeAt(0) === 45 && !/^-\d/.test(t)
}

type GenericField = 'source' | 'destination' | 'inInterface' | 'outInterface' | 'protocol'

const GENERIC: Readonly<Record<string, GenericField>> = {
  '-s': 'source',
  '--source': 'source',
  '--src': 'source',
  '-d': 'destination',
  '--destination': 'destination',
  '--dst': 'destination',
  '-i': 'inInterface',
  '--in-interface': 'inInterface',
  '-o': 'outInterface',
  '--out-interface': 'outInterface',
  '-p': 'protocol',
  '--protocol': 'protocol',
}

interface OwnerRef extends Owner {
  kind: 'match' | 'target'
}

/**
 * Parses a rule's arguments (everything after `-A CHAIN`) into its structure. Throws ParseError for arguments
 * iptables itself would refuse: a missing value, a dangling or doubled `!`, a second `-j`, an option no match
 * owns.
 */
export function parseRuleArgs(args: readonly string[]): ParsedRule {
  const rule: ParsedRule = {
    source: null,
    destination: null,
    inInterface: null,
    outInterface: null,
    protocol: null,
    fragment: null,
    matches: [],
    target: null,
  }
  const owners: OwnerRef[] = []
  let current: OwnerRef | null = null
  let negate = false
  const n = args.length
  for (let i = 0; i < n; i++) {
    const tok = args[i] as string
    if (tok === '!') {
      if (negate) throw new ParseError('"!" given twice in a row')
      negate = true
      continue
    }
    if (tok.charCodeAt(0) === 45 /* - */) {
      const field = GENERIC[tok]
      if (field !== undefined) {
        rule[field] = {value: takeValue(args, ++i, tok), negated: negate}
        negate = false
        continue
      }
      if (tok === '-m' || tok === '--match') {
        if (negate) throw new ParseError(`"!" cannot negate ${tok}`)
        const name = takeValue(args, ++i, tok)
        const match: RuleMatch = {name, options: []}
        rule.matches.push(match)
        current = {kind: 'match', options: match.options, table: MATCH_OPTIONS[name]}
        owners.push(current)
        continue
      }
      if (tok === '-j' || tok === '--jump' || tok === '-g' || tok === '--goto') {
        if (negate) throw new ParseError(`"!" cannot negate ${tok}`)
        if (rule.target) throw new ParseError('more than one -j/-g target in the rule')
        const name = takeValue(args, ++i, tok)
        rule.target = {name, goto: tok === '-g' || tok === '--goto', options: []}
        current = {kind: 'target', options: rule.target.options, table: TARGET_OPTIONS[name]}
        owners.push(current)
        continue
      }
      if (tok === '-f' || tok === '--fragment') {
        rule.fragment = {negated: negate}
        negate = false
        continue
      }
    }
    if (!isOptionToken(tok)) {
      // A stray word: a further value of the previous option of a module whose syntax we do not know.
      if (!current || current.table !== undefined || negate) throw new ParseError(`unexpected argument "${tok}"`)
      current.options.push(tok)
      continue
    }
    let owner: OwnerRef | null = current && (current.table === undefined || tok in current.table) ? current : null
    if (!owner) {
      owner = findOwner(tok, owners, rule)
      if (owner && owner.kind === 'match' && owners[owners.length - 1] === owner && owner !== current) current = owner
    }
    owner ??= current
    if (!owner) throw new ParseError(`option ${tok} does not belong to any match or target in the rule`)
    if (negate) owner.options.push('!')
    negate = false
    owner.options.push(tok)
    const arity = owner.table?.[tok]
    if (arity !== undefined) {
      for (let k = 0; k < arity; k++) owner.options.push(takeValue(args, ++i, tok))
    } else {
      while (i + 1 < n && args[i + 1] !== '!' && !isOptionToken(args[i + 1] as string)) owner.options.push(args[++i] as string)
    }
  }
  if (negate) throw new ParseError('"!" at the end of the rule negates nothing')
  return rule
}

/**
 * Who takes an option the current module does not know: iptables offers it to the target first, then to the
 * matches in load order, and finally loads the protocol's own match (`-p tcp --dport 80` → `-m tcp`).
 */
function findOwner(option: string, owners: OwnerRef[], rule: ParsedRule): OwnerRef | null {
  for (const o of owners) if (o.kind === 'target' && o.table && option in o.table) return o
  for (const o of owners) if (o.kind === 'match' && o.table && option in o.table) return o
  const proto = rule.protocol && !rule.protocol.negated ? protocolMatchName(rule.protocol.value) : null
  if (proto && IMPLICIT_PROTOCOL_MATCHES.has(proto) && option in (MATCH_OPTIONS[proto] ?? {})) {
    const m: RuleMatch = {name: proto, options: []}
    rule.matches.push(m)
    const o: OwnerRef = {kind: 'match', options: m.options, table: MATCH_OPTIONS[proto]}
    owners.push(o)
    return o
  }
  return null
}

function protocolMatchName(p: string): string | null {
  const l = p.toLowerCase()
  if (l === '6') return 'tcp'
  if (l === '17') return 'udp'
  if (l === '132') return 'sctp'
  if (l === '1') return 'icmp'
  if (l === '58' || l === 'icmpv6' || l === 'ipv6-icmp') return 'icmp6'
  return l
}

/** The value following `option` in a match's or target's option tokens, or undefined. */
export function optionValue(options: readonly string[], option: string): string | undefined {
  const i = options.indexOf(option)
  return i === -1 ? undefined : options[i + 1]
}

/** True when `option` is present and preceded by `!`. */
export function optionNegated(options: readonly string[], option: string): boolean {
  const i = options.indexOf(option)
  return i > 0 && options[i - 1] === '!'
}
