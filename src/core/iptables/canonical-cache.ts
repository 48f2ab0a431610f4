// formatRuleTokens(canonicalizeRule(args, family)) for many rules that come from a few templates (kube-proxy writes
// ~440k rules from a few dozen), without the generic parse per rule.
//
// A rule's *shape* is its token list with the values of a few options abstracted into slots: the addresses of
// -s/-d, the ports of --dport/--sport, --comment text, --probability, DNAT's --to-destination, recent's --name and a
// KUBE-* jump target. Each slot value is first put in the canonical form canonical.ts gives it (a per-value
// transform: `1.2.3.4` → `1.2.3.4/32`, a probability → savedProbability, ...); a value the transform does not
// cover stays a literal part of the shape. For every new shape a *plan* is derived once: the shape is
// canonicalised with canonicalizeRule for two different sets of sentinel slot values, and the output tokens are
// split into literal text and slot references (with the quoting formatRuleTokens applies). The plan is kept only if
// both sentinel sets give the same plan, the plan reproduces formatRuleTokens(canonicalizeRule(...)) for both, and
// for the real rule that introduced the shape; otherwise that shape always goes through canonicalizeRule.
// test/unit/core/iptables/canonical-cache.test.ts checks the equivalence over every proxier fixture rule and the 10k
// benchmark rules.
import {canonicalAddress, canonicalHost} from '../net/inet.js'
import type {IpFamily} from '../net/ip.js'
import {canonicalizeRule, savedProbability} from './canonical.js'
import {formatRuleTokens, quoteArg} from './tokenize.js'

/** What a slot holds; decides the value transform and the sentinels used to derive plans. */
const enum Slot {
  Address,
  Port,
  Comment,
  Probability,
  NatDestination,
  Name,
}

/** Options whose value is a slot (the value is the token right after the option). */
const SLOT_OPTIONS: ReadonlyMap<string, Slot> = new Map([
  ['-s', Slot.Address],
  ['-d', Slot.Address],
  ['--dport', Slot.Port],
  ['--sport', Slot.Port],
  ['--comment', Slot.Comment],
  ['--probability', Slot.Probability],
  ['--to-destination', Slot.NatDestination],
  ['--name', Slot.Name],
  ['-j', Slot.Name],
  ['-g', Slot.Name],
])

/** Edge keys for slots in the shape trie (control characters: never a real token of a kube-proxy rule). */
const SLOT_KEYS = ['\u0000addr', '\u0000port', '\u0000comment', '\u0000prob', '\u0000nat', '\u0000name']

/** formatRuleTokens' string-valued options (values quoted with quoteArg; `--nfacct-name` is followed by 2 blanks). */
const STRING_OPTIONS = new Set(['--comment', '--nfacct-name', '--log-prefix', '--nflog-prefix', '--helper'])

/** Derivations at most per cache: beyond that, unseen shapes are canonicalised directly. */
const MAX_SHAPES = 4096

interface Plan {
  /** Literal text before slot 0, between slots, after the last slot (length = slots.length + 1). */
  lits: string[]
  /** For each gap, the slot index (order of the slot in the input shape) whose value goes there. */
  slots: number[]
  /** Whether that value is printed with quoteArg (it follows a string option) rather than bare. */
  quoted: boolean[]
}

interface Node {
  /** The first child, checked before the map: most nodes have one child, and the keys are mostly the same objects. */
  key1: string | undefined
  child1: Node | undefined
  next: Map<string, Node> | undefined
  /** undefined: not derived yet; null: no safe plan, use canonicalizeRule. */
  plan: Plan | null | undefined
}

/** The canonical IPv4 dotted quad (what formatIPv4 prints): 4 decimal parts, 0–255, no leading zeros. */
function isCanonicalIPv4(v: string, from: number, to: number): boolean {
  let parts = 0
  let i = from
  for (;;) {
    const start = i
    let n = 0
    while (i < to) {
      const c = v.charCodeAt(i)
      if (c < 48 || c > 57) break
      n = n * 10 + (c - 48)
      i++
    }
    const len = i - start
    if (len === 0 || len > 3 || n > 255 || (len > 1 && v.charCodeAt(start) === 48)) return false
    parts++
    if (i === to) return parts === 4
    if (parts === 4 || v.charCodeAt(i) !== 46) return false
    i++
  }
}

/** A port number as tcp/udp/sctp print it back unchanged (1–65535, no leading zero). */
function isPlainPort(v: string, from: number, to: number): boolean {
  const len = to - from
  if (len < 1 || len > 5 || v.charCodeAt(from) === 48) return false
  let n = 0
  for (let i = from; i < to; i++) {
    const c = v.charCodeAt(i)
    if (c < 48 || c > 57) return false
    n = n * 10 + (c - 48)
  }
  return n <= 65535
}

/** A chain name as a jump target or recent list name: a KUBE-* name of bare characters, never an extension. */
function isKubeName(v: string): boolean {
  if (!v.startsWith('KUBE-')) return false
  for (let i = 5; i < v.length; i++) {
    const c = v.charCodeAt(i)
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false
  }
  return true
}

/** Printable without quotes by formatRuleTokens and never taken for an option: [0-9A-Za-z.:/[\]] only. */
function isBareValue(v: string): boolean {
  if (v.length === 0) return false
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i)
    if (!((c >= 48 && c <= 58) || (c >= 65 && c <= 93 && c !== 92) || (c >= 97 && c <= 122) || c === 46 || c === 47)) return false
  }
  return true
}

/** Caches canonical save-form rule text per rule shape for one address family. */
export class CanonicalRuleCache {
  readonly #family: IpFamily
  readonly #root: Node = newNode()
  #shapes = 0
  #unplanned = 0
  /** Scratch: the transformed slot values of the rule being formatted. */
  readonly #vals: string[] = []
  readonly #buf: string[] = []
  readonly #addressMemo = new Map<string, string | null>()
  readonly #probabilityMemo = new Map<string, string | null>()
  #lastQuoted = ''
  #lastQuotedOut = '""'

  constructor(family: IpFamily) {
    this.#family = family
  }

  /** Shapes seen so far, and how many of them have no plan (always canonicalised directly). */
  get stats(): {shapes: number; unplanned: number} {
    return {shapes: this.#shapes, unplanned: this.#unplanned}
  }

  /** Exactly formatRuleTokens(canonicalizeRule(args, family)); throws what canonicalizeRule throws. */
  format(args: readonly string[]): string {
    const vals = this.#vals
    let nslots = 0
    let node: Node = this.#root
    const growing = this.#shapes < MAX_SHAPES
    const n = args.length
    for (let i = 0; i < n; i++) {
      const t = args[i] as string
      let key = t
      const kind = t.charCodeAt(0) === 45 ? SLOT_OPTIONS.get(t) : undefined
      if (kind !== undefined && i + 1 < n) {
        // The option itself is a literal edge; its value a slot edge when the transform covers it.
        node = this.#child(node, t, growing)
        if (node === undefined) return this.#direct(args)
        const v = args[i + 1] as string
        const c = this.#transform(kind, v)
        if (c !== null) {
          vals[nslots++] = c
          key = SLOT_KEYS[kind] as string
        } else {
          if (v.charCodeAt(0) === 0) return this.#direct(args)
          key = v
        }
        i++
      }
      // A literal that looks like a slot key would be taken for a slot: leave such rules to canonicalizeRule.
      if (key === t && t.charCodeAt(0) === 0) return this.#direct(args)
      const next = this.#child(node, key, growing)
      if (next === undefined) return this.#direct(args)
      node = next
    }
    let plan = node.plan
    if (plan === undefined) {
      plan = node.plan = this.#derive(args)
      this.#shapes++
      if (plan === null) this.#unplanned++
    }
    if (plan === null) return this.#direct(args)
    return this.#apply(plan, vals)
  }

  #direct(args: readonly string[]): string {
    return formatRuleTokens(canonicalizeRule(args, this.#family))
  }

  // Returns undefined (as Node) only when the shape is unknown and no more shapes may be added.
  #child(node: Node, key: string, grow: boolean): Node {
    if (node.key1 === key) return node.child1 as Node
    if (node.key1 === undefined) {
      if (!grow) return undefined as unknown as Node
      node.key1 = key
      return (node.child1 = newNode())
    }
    let next = node.next
    if (next === undefined) {
      if (!grow) return undefined as unknown as Node
      next = node.next = new Map()
    }
    let child = next.get(key)
    if (child === undefined) {
      if (!grow) return undefined as unknown as Node
      child = newNode()
      next.set(key, child)
    }
    return child
  }

  /** A slot value in its canonical form, or null when it is kept as a literal of the shape. */
  #transform(kind: Slot, v: string): string | null {
    switch (kind) {
      case Slot.Address: {
        if (this.#family === 'ipv4') {
          if (isCanonicalIPv4(v, 0, v.length)) return v + '/32'
        } else if (!v.includes('/')) {
          // canonicalAddress of a bare IPv6 host is its inet_ntop form plus /128 (never the "any" address).
          const h = canonicalHost(v, 'ipv6')
          return h !== null && isBareValue(h) ? h + '/128' : null
        }
        let c = this.#addressMemo.get(v)
        if (c === undefined) {
          c = null
          if (!v.includes(',')) {
            const a = canonicalAddress(v, this.#family)
            if (a !== null && !a.any && isBareValue(a.text)) c = a.text
          }
          // Host addresses are mostly distinct (one per endpoint): keep only networks, which repeat.
          if (v.includes('/') || c === null) memoSet(this.#addressMemo, v, c)
        }
        return c
      }
      case Slot.Port:
        return isPlainPort(v, 0, v.length) ? v : null
      case Slot.Comment:
        return v
      case Slot.Probability: {
        let c = this.#probabilityMemo.get(v)
        if (c === undefined) {
          const p = /^[0-9]*\.?[0-9]+$/.test(v) ? savedProbability(v) : null
          c = p !== null && isBareValue(p) ? p : null
          memoSet(this.#probabilityMemo, v, c)
        }
        return c
      }
      case Slot.NatDestination:
        return this.#natDestination(v)
      case Slot.Name:
        return isKubeName(v) ? v : null
    }
  }

  /** `ip:port` (IPv4) or `[ip]:port` (IPv6) with a plain port, the address in canonical form. */
  #natDestination(v: string): string | null {
    if (this.#family === 'ipv4') {
      const colon = v.indexOf(':')
      if (colon < 0 || !isCanonicalIPv4(v, 0, colon) || !isPlainPort(v, colon + 1, v.length)) return null
      return v
    }
    if (v.charCodeAt(0) !== 91) return null
    const close = v.indexOf(']:')
    if (close < 0 || !isPlainPort(v, close + 2, v.length)) return null
    const addr = v.slice(1, close)
    if (addr.includes('-')) return null
    const host = canonicalHost(addr, 'ipv6')
    if (host === null || !isBareValue(host)) return null
    return host === addr ? v : `[${host}]${v.slice(close + 1)}`
  }

  #apply(plan: Plan, vals: readonly string[]): string {
    const lits = plan.lits
    const m = plan.slots.length
    if (m === 0) return lits[0] as string
    const buf = this.#buf
    buf.length = 0
    buf.push(lits[0] as string)
    for (let k = 0; k < m; k++) {
      const v = vals[plan.slots[k] as number] as string
      buf.push(plan.quoted[k] ? this.#quote(v) : v, lits[k + 1] as string)
    }
    return buf.join('')
  }

  #quote(v: string): string {
    if (v !== this.#lastQuoted) {
      this.#lastQuoted = v
      this.#lastQuotedOut = quoteArg(v)
    }
    return this.#lastQuotedOut
  }

  /**
   * The plan for the shape of `args`, or null when none can be derived safely. Slot positions are those of the
   * walk in format(): an option in SLOT_OPTIONS followed by a value its transform covers.
   */
  #derive(args: readonly string[]): Plan | null {
    const positions: number[] = []
    const kinds: Slot[] = []
    for (let i = 0; i + 1 < args.length; i++) {
      const kind = SLOT_OPTIONS.get(args[i] as string)
      if (kind === undefined) continue
      if (this.#transform(kind, args[i + 1] as string) !== null) {
        positions.push(i + 1)
        kinds.push(kind)
      }
      i++
    }
    const a = this.#planFor(args, positions, kinds, 1)
    if (!a) return null
    const b = this.#planFor(args, positions, kinds, 2)
    if (!b || !samePlan(a.plan, b.plan)) return null
    // The real rule itself must come out right too.
    const realVals = positions.map((p, k) => this.#transform(kinds[k] as Slot, args[p] as string) as string)
    let expected: string
    try {
      expected = this.#direct(args)
    } catch {
      return null
    }
    return this.#apply(a.plan, realVals) === expected ? a.plan : null
  }

  /** Canonicalises the shape with sentinel set `set` in the slots and reads the plan off the output. */
  #planFor(args: readonly string[], positions: readonly number[], kinds: readonly Slot[], set: number): {plan: Plan} | null {
    const tokens = [...args]
    const canon: string[] = []
    for (let k = 0; k < positions.length; k++) {
      const raw = this.#sentinel(kinds[k] as Slot, k, set)
      const c = this.#transform(kinds[k] as Slot, raw)
      if (c === null) return null
      tokens[positions[k] as number] = raw
      canon.push(c)
    }
    let out: string[]
    let text: string
    try {
      out = canonicalizeRule(tokens, this.#family)
      text = formatRuleTokens(out)
    } catch {
      return null
    }
    // Which output token is which slot: each sentinel exactly once, nowhere else.
    const slotAt = new Array<number>(out.length).fill(-1)
    for (let k = 0; k < canon.length; k++) {
      let found = -1
      for (let j = 0; j < out.length; j++) {
        if (out[j] !== canon[k]) continue
        if (found !== -1 || slotAt[j] !== -1) return null
        found = j
      }
      if (found === -1) return null
      slotAt[found] = k
    }
    for (let j = 0; j < out.length; j++) if (slotAt[j] === -1 && canon.includes(out[j] as string)) return null
    // formatRuleTokens' layout, with slot values left open.
    const lits: string[] = []
    const slots: number[] = []
    const quoted: boolean[] = []
    let lit = ''
    const n = out.length
    for (let j = 0; j < n; j++) {
      const t = out[j] as string
      if (j > 0) lit += ' '
      if (slotAt[j] !== -1) {
        // A bare slot value: only kinds whose values never need quotes and never look like options.
        if (kinds[slotAt[j] as number] === Slot.Comment) return null
        lits.push(lit)
        slots.push(slotAt[j] as number)
        quoted.push(false)
        lit = ''
        continue
      }
      if (STRING_OPTIONS.has(t) && j + 1 < n) {
        lit += t + (t === '--nfacct-name' ? '  ' : ' ')
        j++
        if (slotAt[j] !== -1) {
          lits.push(lit)
          slots.push(slotAt[j] as number)
          quoted.push(true)
          lit = ''
        } else lit += quoteArg(out[j] as string)
        continue
      }
      lit += formatRuleTokens([t])
    }
    lits.push(lit)
    const plan: Plan = {lits, slots, quoted}
    // The layout must reproduce formatRuleTokens exactly for this sentinel set.
    if (this.#apply(plan, canon) !== text) return null
    return {plan}
  }

  /** Sentinel raw values: valid for the slot's transform, distinct per slot and per set, unlike real tokens. */
  #sentinel(kind: Slot, k: number, set: number): string {
    const id = set * 64 + k + 1
    switch (kind) {
      case Slot.Address:
        return this.#family === 'ipv4' ? `198.51.${100 + set}.${k + 1}` : `2001:db8:${set}::${(k + 1).toString(16)}`
      case Slot.Port:
        return String(61000 + id)
      case Slot.Comment:
        return `sentinel ${id} "quoted" \\ 'x'`
      case Slot.Probability:
        return `0.${String(id).padStart(4, '0')}123`
      case Slot.NatDestination:
        return this.#family === 'ipv4' ? `198.51.${100 + set}.${k + 1}:${61000 + id}` : `[2001:db8:${set}::${(k + 1).toString(16)}]:${61000 + id}`
      case Slot.Name:
        return `KUBE-SENTINEL-${id}`
    }
  }
}

/** Memo entries at most per map (values come from rules, so the number of distinct ones is not bounded). */
const MAX_MEMO = 65536

function memoSet(memo: Map<string, string | null>, key: string, value: string | null): void {
  if (memo.size >= MAX_MEMO) memo.clear()
  memo.set(key, value)
}

function newNode(): Node {
  return {key1: undefined, child1: undefined, next: undefined, plan: undefined}
}

function samePlan(a: Plan, b: Plan): boolean {
  if (a.lits.length !== b.lits.length) return false
  for (let i = 0; i < a.lits.length; i++) if (a.lits[i] !== b.lits[i]) return false
  for (let i = 0; i < a.slots.length; i++) if (a.slots[i] !== b.slots[i] || a.quoted[i] !== b.quoted[i]) return false
  return true
}
