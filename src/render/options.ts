// What every Report renderer takes, and the small helpers several of them share (subjects, node lists, node order).
// Its own module so render/index.ts (the one output switch) and the renderers it calls never import each other.
import type {CheckSpec} from '../core/checks/types.js'
import type {Report, Severity, Subject} from '../core/model/report.js'

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
  /** The run's --fail-on (default `error`): the table/wide headline and node states follow it, as the exit code does. */
  failOn?: Severity | 'none'
  /**
   * Output goes to a terminal (the command decides; tests force either): `-o wide` prints a vertical block per
   * finding instead of one record per line.
   */
  terminal?: boolean
}

/** `kind/name`, with the namespace as in `ns/name` and the container (`in nat`, `in /path`) when present. */
export function formatSubject(subject: Subject): string {
  const name = subject.namespace ? `${subject.namespace}/${subject.name}` : subject.name
  return `${subject.kind}/${name}${subject.in ? ` in ${subject.in}` : ''}`
}

const SHORT_SUBJECT = 48

/**
 * The subject for the narrow table, at most `max` characters; -o wide shows it whole. The key (`kind/name`) is never
 * cut in the middle: a long container path (`in /var/lib/kubelet/config.yaml`) is shortened from the left at a `/`
 * (`in …/kubelet/config.yaml`), then dropped; a key that is itself an absolute path (a file) likewise; any other long key (a
 * whole rule) keeps its start and ends in `…`.
 */
export function shortSubject(subject: Subject, max = SHORT_SUBJECT): string {
  const full = formatSubject(subject)
  if (length(full) <= max) return full
  const key = formatSubject({kind: subject.kind, name: subject.name, ...(subject.namespace ? {namespace: subject.namespace} : {})})
  if (subject.in && length(key) < max) {
    const room = max - length(key) - ' in '.length
    const where = leftShortened(subject.in, room)
    if (where !== undefined) return `${key} in ${where}`
  }
  if (length(key) <= max) return key
  const kind = `${subject.kind}/`
  if (subject.name.startsWith('/') && !subject.namespace && length(kind) + 3 <= max) {
    const path = leftShortened(key.slice(kind.length), max - length(kind), true)
    if (path !== undefined) return kind + path
  }
  return `${[...key].slice(0, max - 1).join('')}…`
}

/**
 * `…/kubelet/config.yaml`: the longest tail of `path` starting at a `/` that fits `room` with its `…`. When not even
 * the last `/` part fits: undefined, or with `partial` its last characters.
 */
function leftShortened(path: string, room: number, partial = false): string | undefined {
  if (length(path) <= room) return path
  if (room < 2) return undefined
  const chars = [...path]
  for (let i = 1; i < chars.length; i++) {
    if (chars[i] === '/' && chars.length - i + 1 <= room) return `…${chars.slice(i).join('')}`
  }
  return partial ? `…${chars.slice(chars.length - (room - 1)).join('')}` : undefined
}

function length(text: string): number {
  return [...text].length
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
