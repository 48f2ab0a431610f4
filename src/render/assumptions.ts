// The one-line form of a node's assumptions (NodeSummary.assumptions), shared by the table, markdown and the
// comment block above `proxy render` output: `kube-proxy v1.37.2 (from pod kube-system/kube-proxy-x2x9k) · mode
// iptables (from kube-proxy /proxyMode) · …`. Defaults and assumptions say so instead of "from". Pure text.
import type {Assumption} from '../core/model/report.js'

const LABELS: Record<string, string> = {'kube-proxy version': 'kube-proxy'}

/** `default`/`assumed` sources shortened to that word; others as `from SOURCE`. */
function sourceText(source: string): string {
  const m = /^(default|assumed)s?\b/.exec(source)
  if (m) return m[1]!
  return /^(no|not)\b/.test(source) ? source : `from ${source}`
}

/** One assumption as `NAME VALUE (from SOURCE)`; feature gates left at their defaults are named, not listed. */
export function formatAssumption(a: Assumption): string {
  const label = LABELS[a.name] ?? a.name
  if (a.name === 'feature gates' && /^defaults? /.test(a.source)) return `${label}: ${a.source}`
  return `${label} ${a.value} (${sourceText(a.source)})`
}

/** The whole list as one line (callers wrap it to the terminal width). */
export function formatAssumptionsLine(list: readonly Assumption[]): string {
  return `assumed: ${list.map(formatAssumption).join(' · ')}`
}

/** Notes worth a line of their own (sources that disagree, a layout used instead), without repeats. */
export function assumptionNotes(list: readonly Assumption[]): string[] {
  return [...new Set(list.flatMap((a) => a.notes ?? []))]
}

/**
 * The fleet view's summary of the kube-proxy versions assumed: `assumed: kube-proxy v1.37.2 on 4 nodes, v1.36.1 on
 * 2 nodes (each node's sources: -o wide, -o json)`; undefined when no node carries assumptions.
 */
export function fleetVersionLine(nodes: ReadonlyArray<{name: string; assumptions?: Assumption[]}>): string | undefined {
  const counts = new Map<string, number>()
  for (const n of nodes) {
    const v = n.assumptions?.find((a) => a.name === 'kube-proxy version')
    if (!v) continue
    const key = /^assumed/.test(v.source) ? `${v.value} (assumed)` : v.value
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  if (counts.size === 0) return undefined
  const parts = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([v, n]) => `${v} on ${n} ${n === 1 ? 'node' : 'nodes'}`)
  return `assumed: kube-proxy ${parts.join(', ')} (each node's sources: -o wide, -o json)`
}
