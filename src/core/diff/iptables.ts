// Semantic diff of kube-proxy's iptables state: expected (from the embedded proxier, in iptables-save form) vs
// actual (the node's iptables-save). Both sides are canonical save-form rule text, so equal rules are equal strings.
//
// What is compared: only the chains kube-proxy owns (fixed KUBE-* chains and the per-service KUBE-SVC/SVL/EXT/FW/SEP
// chains) plus the jumps kube-proxy installs in built-in chains. Counters and everything else (CNI, kubelet,
// docker chains) are ignored. Chains whose rule order kube-proxy randomises (service order in KUBE-SERVICES,
// KUBE-NODEPORTS, ...) are compared as multisets, except that the nodeports jump must stay the last rule.
import {diffArrays} from 'diff'

/** One table: chain name → rule bodies (the text after `-A CHAIN `), in order. */
export type TableView = Map<string, string[]>

/** One IP family's state: table name → chains. */
export type IptablesView = Map<string, TableView>

/** Built-in chain jumps that must exist (table, chain, rule body). */
export interface RequiredJump {
  table: string
  chain: string
  rule: string
}

export type IptablesDifference =
  | {kind: 'missing-chain'; table: string; chain: string; expectedRules: string[]; group?: string}
  | {kind: 'stale-chain'; table: string; chain: string; actualRules: string[]; group?: string}
  | {kind: 'missing-rule'; table: string; chain: string; rule: string; group?: string}
  | {kind: 'extra-rule'; table: string; chain: string; rule: string; group?: string}
  | {kind: 'wrong-probability'; table: string; chain: string; expected: string; actual: string; group?: string}
  | {kind: 'misordered'; table: string; chain: string; detail: string; rules: string[]; group?: string}
  | {kind: 'undefined-jump'; table: string; chain: string; rule: string; target: string; group?: string}
  | {kind: 'missing-builtin-jump'; table: string; chain: string; rule: string}

/** Per-service chain prefixes: such chains are kube-proxy's and are deleted when stale. */
export const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-FW-', 'KUBE-SEP-'] as const

/** The fixed chains kube-proxy's iptables proxier writes, per table. */
export const FIXED_CHAINS: Record<string, readonly string[]> = {
  filter: ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-FORWARD', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL', 'KUBE-FIREWALL'],
  nat: ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ'],
}

/** Chains whose rule order kube-proxy does not define (Go map iteration over services / node IPs). */
const UNORDERED: Record<string, ReadonlySet<string>> = {
  filter: new Set(['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL']),
  nat: new Set(['KUBE-SERVICES', 'KUBE-NODEPORTS']),
}

const NODEPORTS_JUMP_MARK = 'this must be the last rule in this chain'

export function isServiceChain(chain: string): boolean {
  if (!chain.startsWith('KUBE-')) return false
  for (const p of SERVICE_CHAIN_PREFIXES) if (chain.startsWith(p)) return true
  return false
}

/** Whether kube-proxy's iptables proxier owns this chain (and so it takes part in the diff). */
export function isOwnedChain(table: string, chain: string): boolean {
  const fixed = FIXED_CHAINS[table]
  if (fixed !== undefined) for (const c of fixed) if (c === chain) return true
  return table === 'nat' && isServiceChain(chain)
}

const PROBABILITY = /(--probability )(\S+)/

/** Where the jump target of a rule body starts (after `-j `/`-g `), or -1 when the rule has none. */
function targetIndex(rule: string): number {
  // The target comes last in iptables-save output, so search from the end (a hot path: every rule is checked); a
  // ` -g ` can only matter after the last ` -j `, so that is a short forward search when there is one.
  const j = rule.lastIndexOf(' -j ')
  const g = j < 0 || rule.indexOf(' -g ', j + 1) >= 0 ? rule.lastIndexOf(' -g ') : -1
  const i = Math.max(j, g)
  if (i >= 0) return i + 4
  return rule.startsWith('-j ') || rule.startsWith('-g ') ? 3 : -1
}

/** The jump target of a rule body (`-j X` or `-g X`), if any. */
export function ruleTarget(rule: string): string | undefined {
  const start = targetIndex(rule)
  if (start < 0) return undefined
  const end = rule.indexOf(' ', start)
  return rule.slice(start, end < 0 ? undefined : end)
}

/** The service-port name from a rule's comment, when kube-proxy wrote one. */
export function ruleServicePort(rule: string): string | undefined {
  const m = /--comment (?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(rule)
  const comment = m?.[1] ?? m?.[2]
  if (!comment) return undefined
  const spn = comment.split(' ')[0]!
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[^\s]*)?$/.test(spn) ? spn : undefined
}

function sameRules(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Rules missing from `actual` and extra in it, counting duplicates (a rule listed twice must be there twice). */
export function multisetDiff(expected: readonly string[], actual: readonly string[]): {missing: string[]; extra: string[]} {
  const counts = new Map<string, number>()
  for (const r of actual) counts.set(r, (counts.get(r) ?? 0) + 1)
  const missing: string[] = []
  for (const r of expected) {
    const n = counts.get(r) ?? 0
    if (n > 0) counts.set(r, n - 1)
    else missing.push(r)
  }
  const extra: string[] = []
  for (const r of actual) {
    const n = counts.get(r) ?? 0
    if (n > 0) {
      extra.push(r)
      counts.set(r, n - 1)
    }
  }
  return {missing, extra}
}

export interface DiffOptions {
  /** Chain name → the service-port name it belongs to (from the proxier), for grouping. */
  chainGroups?: ReadonlyMap<string, string>
  requiredJumps?: readonly RequiredJump[]
}

/**
 * Compares expected and actual state for one IP family. Deterministic: differences come out in table, chain and
 * rule order of the expected side, then the actual side.
 */
export function diffIptables(expected: IptablesView, actual: IptablesView, options: DiffOptions = {}): IptablesDifference[] {
  const out: IptablesDifference[] = []
  const groupOf = (chain: string, rules: readonly string[]): string | undefined =>
    options.chainGroups?.get(chain) ?? rules.map(ruleServicePort).find((s) => s !== undefined)

  for (const table of ['filter', 'nat'] as const) {
    const exp = expected.get(table) ?? new Map<string, string[]>()
    const act = actual.get(table) ?? new Map<string, string[]>()

    // forEach over the chain maps: no entry array per chain (for…of allocates them until optimised).
    let found = 0
    exp.forEach((expRules, chain) => {
      if (!isOwnedChain(table, chain)) return
      const actRules = act.get(chain)
      if (actRules === undefined) {
        out.push(withGroup({kind: 'missing-chain', table, chain, expectedRules: [...expRules]}, groupOf(chain, expRules)))
        return
      }
      found++
      if (sameRules(expRules, actRules)) return
      if (UNORDERED[table]?.has(chain)) diffUnordered(out, table, chain, expRules, actRules, groupOf)
      else diffOrdered(out, table, chain, expRules, actRules, groupOf(chain, expRules))
    })

    // Stale chains: owned actual chains beyond the `found` ones that are also expected (checked only if any).
    let owned = 0
    act.forEach((_, chain) => {
      if (isOwnedChain(table, chain)) owned++
    })
    if (owned > found) {
      for (const [chain, actRules] of act) {
        if (!isOwnedChain(table, chain) || exp.has(chain)) continue
        out.push(withGroup({kind: 'stale-chain', table, chain, actualRules: [...actRules]}, groupOf(chain, actRules)))
      }
    }

    // Jumps into KUBE-* chains that do not exist: traffic hitting them is dropped by iptables with an error.
    // Only jumps into KUBE-* matter: the target's first characters are checked before it is sliced out, and a
    // target just found defined (KUBE-MARK-MASQ, mostly) is recognised in place without a lookup.
    let defined = ''
    act.forEach((actRules, chain) => {
      if (!isOwnedChain(table, chain)) return
      for (let i = 0; i < actRules.length; i++) {
        const rule = actRules[i]!
        const at = targetIndex(rule)
        if (at < 0 || !rule.startsWith('KUBE-', at)) continue
        const end = rule.indexOf(' ', at)
        const len = (end < 0 ? rule.length : end) - at
        if (len === defined.length && rule.startsWith(defined, at)) continue
        const target = rule.slice(at, at + len)
        if (act.has(target) || BUILTIN_KUBE_TARGETS.has(target)) defined = target
        else out.push(withGroup({kind: 'undefined-jump', table, chain, rule, target}, groupOf(chain, [rule])))
      }
    })
  }

  for (const jump of options.requiredJumps ?? []) {
    const rules = actual.get(jump.table)?.get(jump.chain) ?? []
    if (!rules.includes(jump.rule)) out.push({kind: 'missing-builtin-jump', table: jump.table, chain: jump.chain, rule: jump.rule})
  }
  return out
}

/** KUBE-prefixed names that are not chains kube-proxy must define (none today; kept explicit for the jump check). */
const BUILTIN_KUBE_TARGETS: ReadonlySet<string> = new Set()

function withGroup<T extends IptablesDifference>(d: T, group: string | undefined): T {
  if (group !== undefined && d.kind !== 'missing-builtin-jump') (d as {group?: string}).group = group
  return d
}

function diffUnordered(
  out: IptablesDifference[],
  table: string,
  chain: string,
  expRules: readonly string[],
  actRules: readonly string[],
  groupOf: (chain: string, rules: readonly string[]) => string | undefined,
): void {
  const {missing, extra} = multisetDiff(expRules, actRules)
  for (const rule of missing) out.push(withGroup({kind: 'missing-rule', table, chain, rule}, groupOf(ruleTarget(rule) ?? '', [rule])))
  for (const rule of extra) out.push(withGroup({kind: 'extra-rule', table, chain, rule}, groupOf(ruleTarget(rule) ?? '', [rule])))
  // The nodeports jump has a defined place: last in nat/filter KUBE-SERVICES.
  const last = actRules[actRules.length - 1]
  const jump = actRules.find((r) => r.includes(NODEPORTS_JUMP_MARK))
  if (jump !== undefined && last !== jump && expRules.includes(jump)) {
    out.push({kind: 'misordered', table, chain, detail: 'the KUBE-NODEPORTS jump is not the last rule of the chain', rules: [jump]})
  }
}

function diffOrdered(
  out: IptablesDifference[],
  table: string,
  chain: string,
  expRules: readonly string[],
  actRules: readonly string[],
  group: string | undefined,
): void {
  const parts = diffArrays([...expRules], [...actRules])
  let pendingRemoved: string[] = []
  const flush = () => {
    for (const rule of pendingRemoved) out.push(withGroup({kind: 'missing-rule', table, chain, rule}, group))
    pendingRemoved = []
  }
  for (const part of parts) {
    if (part.removed) {
      flush()
      pendingRemoved = [...part.value]
    } else if (part.added) {
      const added = [...part.value]
      // A removed/added pair that differs only in the statistic probability is one wrong-probability difference.
      const paired: string[] = []
      for (const rule of added) {
        const i = pendingRemoved.findIndex((r) => r.replace(PROBABILITY, '$1*') === rule.replace(PROBABILITY, '$1*'))
        if (i >= 0 && PROBABILITY.test(rule)) {
          const [exp] = pendingRemoved.splice(i, 1)
          out.push(withGroup({kind: 'wrong-probability', table, chain, expected: exp!, actual: rule}, group))
          paired.push(rule)
        }
      }
      flush()
      for (const rule of added) if (!paired.includes(rule)) out.push(withGroup({kind: 'extra-rule', table, chain, rule}, group))
    } else {
      flush()
    }
  }
  flush()
  // Same rules, different order: report once per chain rather than as missing+extra pairs.
  const {missing, extra} = multisetDiff(expRules, actRules)
  if (missing.length === 0 && extra.length === 0 && expRules.join('\n') !== actRules.join('\n')) {
    for (let i = out.length - 1; i >= 0; i--) {
      const d = out[i]!
      if ((d.kind === 'missing-rule' || d.kind === 'extra-rule') && d.table === table && d.chain === chain) out.splice(i, 1)
    }
    out.push(withGroup({kind: 'misordered', table, chain, detail: 'the rules are all present but in the wrong order', rules: [...actRules]}, group))
  }
}
