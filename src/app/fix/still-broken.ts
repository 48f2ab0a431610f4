// After `fix kube-proxy` / `fix calico-node` verified a node: check the other areas of the Service path there (the
// ones the repair's own verify did not look at) and say which Services the repaired findings broke are still
// broken by something else, so a healthy verify is not read as "the Service works now".
import {BEFORE_SUFFIX} from '../repair/pod-restart-plan.js'
import type {NodeChecker} from '../repair/pod-restart.js'
import type {Area, Finding} from '../../core/model/report.js'
import {stillBroken, stillBrokenLines} from '../../core/why/remaining.js'
import {WHY_AREAS} from '../why.js'

/** Lines for stderr, one per Service still broken on each repaired node; none when nothing is left (or no Service was). */
export async function stillBrokenNotes(before: readonly Finding[], repairedNodes: readonly string[], repairAreas: readonly Area[], check: NodeChecker): Promise<string[]> {
  const byNode = new Map(repairedNodes.map((n) => [n, before.filter((f) => f.node === n + BEFORE_SUFFIX).map((f) => ({...f, node: n}))]))
  const withImpact = repairedNodes.filter((n) => byNode.get(n)!.some((f) => f.impact !== undefined))
  const others = WHY_AREAS.filter((a) => !repairAreas.includes(a))
  if (withImpact.length === 0 || others.length === 0) return []
  const now = await check(withImpact, others)
  return withImpact.flatMap((n) => stillBrokenLines(n, stillBroken(byNode.get(n)!, now.report.findings, n)))
}
