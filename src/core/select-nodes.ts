// Node selection: names, a label selector (kubectl syntax), or all nodes.
import type {Node} from './model/k8s.js'
import {ParseError} from '../errors.js'

type Requirement =
  | {op: 'eq' | 'neq'; key: string; value: string}
  | {op: 'in' | 'notin'; key: string; values: string[]}
  | {op: 'exists' | 'notexists'; key: string}

const KEY = /^([a-z0-9A-Z]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/

/** Parses a label selector as kubectl accepts it: `a=b,c!=d,e in (x,y),f notin (z),g,!h`. */
export function parseLabelSelector(selector: string): Requirement[] {
  const parts: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of selector) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      parts.push(cur)
      cur = ''
    } else cur += ch
  }
  parts.push(cur)
  return parts.map((raw) => {
    const p = raw.trim()
    let m: RegExpExecArray | null
    if ((m = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      checkKey(m[1]!, selector)
      return {op: m[2] as 'in' | 'notin', key: m[1]!, values: m[3]!.split(',').map((v) => v.trim()).filter(Boolean)}
    }
    if ((m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(p))) {
      checkKey(m[1]!, selector)
      return {op: m[2] === '!=' ? 'neq' : 'eq', key: m[1]!, value: m[3]!}
    }
    if ((m = /^!\s*(\S+)$/.exec(p))) {
      checkKey(m[1]!, selector)
      return {op: 'notexists', key: m[1]!}
    }
    if (p !== '' && KEY.test(p)) return {op: 'exists', key: p}
    throw new ParseError(`invalid label selector "${selector}": cannot parse "${p}"`)
  })
}

function checkKey(key: string, selector: string): void {
  if (!KEY.test(key)) throw new ParseError(`invalid label selector "${selector}": "${key}" is not a valid label key`)
}

export function matchesSelector(labels: Record<string, string> | undefined, reqs: readonly Requirement[]): boolean {
  const l = labels ?? {}
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key)
    switch (r.op) {
      case 'eq':
        return has && l[r.key] === r.value
      case 'neq':
        return !has || l[r.key] !== r.value
      case 'in':
        return has && r.values.includes(l[r.key]!)
      case 'notin':
        return !has || !r.values.includes(l[r.key]!)
      case 'exists':
        return has
      case 'notexists':
        return !has
    }
  })
}

export interface NodeSelection {
  names?: readonly string[]
  selector?: string
  all?: boolean
}

/**
 * The nodes to work on, in name order. Unknown names are returned separately so the caller can report them
 * (kubectl-style `nodes "x" not found`).
 */
export function selectNodes(nodes: readonly Node[], sel: NodeSelection): {selected: Node[]; unknown: string[]} {
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]))
  let selected: Node[]
  const unknown: string[] = []
  if (sel.names && sel.names.length > 0) {
    selected = []
    for (const name of sel.names) {
      const n = byName.get(name)
      if (n) selected.push(n)
      else unknown.push(name)
    }
  } else if (sel.selector !== undefined) {
    const reqs = parseLabelSelector(sel.selector)
    selected = nodes.filter((n) => matchesSelector(n.metadata.labels, reqs))
  } else {
    selected = [...nodes]
  }
  const seen = new Set<string>()
  selected = selected.filter((n) => !seen.has(n.metadata.name) && seen.add(n.metadata.name))
  return {selected: selected.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)), unknown}
}

/** The node's address of the given type (InternalIP by default). */
export function nodeAddress(node: Node, type = 'InternalIP'): string | undefined {
  return node.status?.addresses?.find((a) => a.type === type)?.address
}
