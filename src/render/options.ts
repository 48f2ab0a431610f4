// What every Report renderer takes, and the small helpers several of them share (subjects, node lists, node order).
// Its own module so render/index.ts (the one output switch) and the renderers it calls never import each other.
import type {CheckSpec} from '../core/checks/types.js'
import type {Report, Subject} from '../core/model/report.js'

/** The formats of the `show` views (iptables, ipvs, nft, routes, kubelet, kube-proxy). */
export const SHOW_FORMATS = ['table', 'json', 'yaml'] as const
export type ShowFormat = (typeof SHOW_FORMATS)[number]

export interface RenderOptions {
  /** Use ANSI colour (only on a TTY, never with NO_COLOR or --no-color; the command decides). Only table/wide colour. */
  color: boolean
  /** Terminal width, when known; table/wide wrap their long columns to it. Undefined: never wrap (pipes). */
  width?: number
  /** Catalog entries for check titles (table/wide, JUnit, Markdown) and rule metadata (SARIF); ids not found are shown bare. */
  catalog?: readonly CheckSpec[]
  /** Lines shown under the headline as warnings (expired baseline entries, ...); only Markdown shows them. */
  warnings?: readonly string[]
}

/** `kind/name`, with the namespace as in `ns/name` and the container (`in nat`, `in /path`) when present. */
export function formatSubject(subject: Subject): string {
  const name = subject.namespace ? `${subject.namespace}/${subject.name}` : subject.name
  return `${subject.kind}/${name}${subject.in ? ` in ${subject.in}` : ''}`
}

const SHORT_SUBJECT = 48

/** The subject for the narrow table: long names (whole rules) are elided in the middle; -o wide shows them whole. */
export function shortSubject(subject: Subject): string {
  const full = formatSubject(subject)
  if (full.length <= SHORT_SUBJECT) return full
  const keep = SHORT_SUBJECT - 1
  return `${full.slice(0, Math.ceil(keep * 0.6))}…${full.slice(full.length - Math.floor(keep * 0.4))}`
}

/** `worker-1`, or `3 nodes: a, b, c`, or `412 nodes: a, b, c, …`. */
export function nodeList(nodes: readonly string[], shown = 3): string {
  if (nodes.length === 1) return nodes[0]!
  return `${nodes.length} nodes: ${nodes.slice(0, shown).join(', ')}${nodes.length > shown ? ', …' : ''}`
}

/** Nodes in report order, then any node that only findings, results or errors mention. */
export function nodeNames(report: Report): string[] {
  const names = report.nodes.map((n) => n.name)
  const seen = new Set(names)
  for (const x of [...report.findings, ...report.results, ...report.collectionErrors]) {
    if (x.node !== undefined && !seen.has(x.node)) {
      seen.add(x.node)
      names.push(x.node)
    }
  }
  return names
}
