// After a repair verified on a node: the other findings there that still break a Service the repaired findings
// broke (a kube-proxy restart fixes the rules, but the route to one endpoint's block is still missing). Pure.
import type {Finding} from '../model/report.js'

export interface StillBroken {
  service: string
  findings: Finding[]
}

/** The Services `repaired` (findings on `node` before the repair) broke that `others` (findings now) still break. */
export function stillBroken(repaired: readonly Finding[], others: readonly Finding[], node: string): StillBroken[] {
  const mine = (f: Finding) => f.node === node && f.impact !== undefined
  const touched = new Set(repaired.filter(mine).flatMap((f) => f.impact!.services.map((s) => s.service)))
  const everything = repaired.some((f) => mine(f) && f.impact!.all)
  const out = new Map<string, Finding[]>()
  for (const f of others.filter(mine)) {
    for (const s of new Set(f.impact!.services.map((x) => x.service))) {
      if (!everything && !touched.has(s)) continue
      out.set(s, [...(out.get(s) ?? []), f])
    }
  }
  return [...out].sort(([a], [b]) => a.localeCompare(b)).map(([service, findings]) => ({service, findings}))
}

/** `node-a: shop/web is still broken from node-a after the repair: RT-001 no route to ... (breaks: ...)`. */
export function stillBrokenLines(node: string, broken: readonly StillBroken[]): string[] {
  return broken.map((b) => `${node}: ${b.service} is still broken from ${node} after the repair: ${b.findings.map((f) => `${f.id} ${f.message}`).join('; ')} (see \`kubectl node-doctor why svc/${b.service} --from ${node}\`)`)
}
