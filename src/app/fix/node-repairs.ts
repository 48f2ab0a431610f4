// `fix kubelet` and `fix conntrack`: the node repairs of src/app/repair run through the node-repair flow
// (src/app/fix/node-session.ts); the command confirms and prints.
import type {KubeletEdit} from '../repair/kubelet-edit.js'
import {applyConntrackFix, formatConntrackPlan, planConntrackFix} from '../repair/conntrack.js'
import {applyKubeletFix, formatKubeletPlan, planKubeletFix} from '../repair/kubelet.js'
import type {Environment} from '../../ports/environment.js'
import {type NodeRepairOutcome, type RepairSessionFlags, runNodeRepair} from './node-session.js'

type Confirm = (planText: string, question: string) => Promise<'apply' | 'dry-run' | 'declined'>
type Flags = RepairSessionFlags & {'dry-run'?: boolean}

export function fixKubelet(
  req: {node: string; set: KubeletEdit[]; fromFinding?: string | undefined; waitTimeoutMs: number},
  flags: Flags,
  env: Environment,
  confirm: Confirm,
): Promise<NodeRepairOutcome> {
  return runNodeRepair(req.node, flags, env, {
    permissions: {
      what: `fix the kubelet of node ${req.node}`,
      // get the Node: its Ready condition is how the restart is verified; --from-finding reads the Services too.
      queries: [{verb: 'get', resource: 'nodes', name: req.node}, ...(req.fromFinding !== undefined ? [{verb: 'list', resource: 'services'}] : [])],
    },
    plan: (deps) => planKubeletFix(deps, req.fromFinding === undefined ? {node: req.node, set: req.set} : {node: req.node, fromFinding: req.fromFinding}),
    changes: (plan) => plan.changes.length > 0,
    format: formatKubeletPlan,
    confirm: (text) => confirm(text, `Apply this change to node ${req.node} and restart its kubelet`),
    apply: (deps, plan) => applyKubeletFix(deps, plan, {waitTimeoutMs: req.waitTimeoutMs}),
  })
}

export function fixConntrack(req: {node: string; namespace: string; name: string}, flags: Flags, env: Environment, confirm: Confirm): Promise<NodeRepairOutcome> {
  return runNodeRepair(req.node, flags, env, {
    permissions: {
      what: `fix conntrack on node ${req.node}`,
      queries: [
        {verb: 'get', resource: 'nodes', name: req.node},
        {verb: 'list', resource: 'services', namespace: req.namespace},
        {verb: 'list', resource: 'endpointslices', group: 'discovery.k8s.io', namespace: req.namespace},
      ],
    },
    plan: (deps) => planConntrackFix(deps, req),
    changes: (plan) => plan.deletions.length > 0,
    format: formatConntrackPlan,
    confirm: (text) => confirm(text, `Delete these conntrack entries on node ${req.node}`),
    apply: (deps, plan) => applyConntrackFix(deps, plan, req),
  })
}
