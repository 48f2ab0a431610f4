// RT-012: the per-pod host routes of CNIs that give pods VPC addresses and route each one on the host.
// Amazon VPC CNI (aws/amazon-vpc-cni-k8s cmd/routed-eni-cni-plugin/driver/driver.go, setupIPBasedContainerRouteRules):
// `<pod IP> dev <host veth> scope link` in the main table (host veth prefix `eni` by default); security-group pods in
// strict mode get that route in their VLAN's table instead. Azure CNI in transparent mode (Azure/azure-container-networking
// network/transparent_endpointclient_linux.go AddEndpointRules): `<pod IP>/32 dev <host veth>`, host veths named
// `azv<hash>` (`azveth…` in older releases); bridge mode (azure0) has no per-pod routes and is not judged.
import type {Pod} from '../../model/k8s.js'
import type {Route} from '../../parse/routes.js'
import {isSettling, isTerminal, isTerminating, podIps} from '../dns/pods.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {formatRoute, isHostRoute} from './compare.js'

export type VpcCni = 'aws' | 'azure'

const DEVICE_PREFIX: Record<VpcCni, string> = {aws: 'eni', azure: 'azv'}
const TITLE: Record<VpcCni, string> = {aws: 'Amazon VPC CNI', azure: 'Azure CNI (transparent mode)'}
/** Security groups for pods: the branch ENI annotation (strict mode routes the pod in its VLAN table). */
const POD_ENI_ANNOTATION = 'vpc.amazonaws.com/pod-eni'

export type VpcProblem =
  | {kind: 'missing-pod-route'; pod: Pod; ip: string; actual: Route[]}
  | {kind: 'orphan-route'; route: Route}

const hostIp = (r: Route) => r.dst.replace(/\/(32|128)$/, '')
const isPodRoute = (r: Route) => r.type === 'unicast' && !r.gateway && !r.nexthops && r.dev !== undefined && isHostRoute(r)

/** Every local pod IP without its host route, and every host route on the CNI's devices without a local pod. */
export function compareVpcRoutes(cni: VpcCni, node: string, routes: readonly Route[], pods: readonly Pod[], collectedAt: string): VpcProblem[] {
  const problems: VpcProblem[] = []
  const local = pods.filter((p) => p.spec?.nodeName === node && p.spec.hostNetwork !== true && !isTerminal(p))
  const known = new Set(local.flatMap(podIps))
  const byIp = new Map<string, Route[]>()
  for (const r of routes) if (isHostRoute(r)) byIp.set(hostIp(r), [...(byIp.get(hostIp(r)) ?? []), r])
  for (const pod of local) {
    if (isTerminating(pod) || isSettling(pod, collectedAt)) continue
    const anyTable = cni === 'aws' && pod.metadata.annotations?.[POD_ENI_ANNOTATION] !== undefined
    for (const ip of podIps(pod)) {
      const rs = byIp.get(ip) ?? []
      const good = rs.filter((r) => isPodRoute(r) && (anyTable || r.table === 'main') && (cni === 'aws' || r.dev!.startsWith(DEVICE_PREFIX.azure)))
      if (good.length === 0) problems.push({kind: 'missing-pod-route', pod, ip, actual: rs.filter((r) => r.table === 'main')})
    }
  }
  for (const r of routes) {
    if (r.table !== 'main' || !isPodRoute(r) || !r.dev!.startsWith(DEVICE_PREFIX[cni])) continue
    if (!known.has(hostIp(r))) problems.push({kind: 'orphan-route', route: r})
  }
  return problems
}

function vpcCniOf(ctx: CheckContext, routes: readonly Route[]): {cni: VpcCni} | {reason: string} {
  const layout = factsOf(ctx).resolvedLayout.cni
  const hasRoutesOn = (prefix: string) => routes.some((r) => r.table === 'main' && isPodRoute(r) && r.dev!.startsWith(prefix))
  if (layout.name === 'aws-vpc-cni') return {cni: 'aws'}
  if (layout.name === 'azure-cni') {
    return hasRoutesOn(DEVICE_PREFIX.azure) ? {cni: 'azure'} : {reason: 'not applicable: Azure CNI without azv* host routes (bridge mode) routes no pod on the host'}
  }
  if (layout.name === 'unknown' || layout.name === 'other') {
    if (hasRoutesOn(DEVICE_PREFIX.aws)) return {cni: 'aws'}
    if (hasRoutesOn(DEVICE_PREFIX.azure)) return {cni: 'azure'}
    return {reason: 'not applicable: no VPC CNI that routes per pod here (the layout does not name one, and no eni*/azv* host routes)'}
  }
  if (layout.name === 'cilium') return {reason: 'not applicable: the CNI here is Cilium (its routes are checked by RT-013, RT-014)'}
  if (layout.name === 'calico' && layout.mode === 'ebpf') return {reason: 'not applicable: the CNI here is Calico eBPF (its routes are checked by RT-001..RT-008)'}
  return {reason: `not applicable: the CNI here is ${layout.name}, not a VPC CNI that routes per pod`}
}

const podSubject = (p: Pod) => ({kind: 'Pod', name: p.metadata.name, ...(p.metadata.namespace ? {namespace: p.metadata.namespace} : {})})

export function runVpcPodRoutes(ctx: CheckContext): CheckOutcome {
  const table = factsOf(ctx).routes('ip-route')
  if (table === undefined) return {status: 'skipped', reason: 'missing input: ip-route'}
  if (!table.ok) return {status: 'skipped', reason: `cannot read the ip-route artifact: ${table.error.message}`}
  const routes = table.value.routes
  const which = vpcCniOf(ctx, routes)
  if ('reason' in which) return {status: 'skipped', reason: which.reason}
  const {cni} = which
  const dev = `${DEVICE_PREFIX[cni]}<hash>`
  const findings: FindingDraft[] = compareVpcRoutes(cni, ctx.node.node, routes, ctx.cluster.pods, ctx.cluster.collectedAt).map((p) => {
    if (p.kind === 'missing-pod-route') {
      const name = `${p.pod.metadata.namespace}/${p.pod.metadata.name}`
      return {
        message:
          p.actual.length > 0
            ? `pod ${name} (${p.ip}) is routed via ${p.actual.map(formatRoute).join('; ')} instead of its host veth: it is unreachable`
            : `pod ${name} (${p.ip}) has no host route: nothing reaches it, not even kubelet's probes`,
        subject: podSubject(p.pod),
        evidence: [`expected: ${p.ip} dev ${dev} scope link (${TITLE[cni]})`, ...p.actual.map((r) => `actual:   ${formatRoute(r)}`), `pod IPs: ${podIps(p.pod).join(', ')}`],
      }
    }
    return {
      message: `route ${formatRoute(p.route)} has no pod on this node: it outlived its pod (harmless until the IP is reused)`,
      subject: {kind: 'route', name: hostIp(p.route), in: 'table main'},
      evidence: [`actual: ${formatRoute(p.route)}`],
      severity: 'info',
    }
  })
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}
