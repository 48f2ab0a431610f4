// A resolved layout as reports carry it (model NodeLayout): the one-line summary printed in each node's header
// ("k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan") and the structure for tools.
import type {NodeLayout} from '../model/report.js'
import {type ResolvedLayout, SERVICES_OWNER_TITLE} from './resolve.js'

const WHERE: Record<ResolvedLayout['kubeProxy']['where'], string> = {
  daemonset: 'DaemonSet',
  'static-pod': 'static pod',
  embedded: 'embedded',
  none: '',
  unknown: '',
}

/** `k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan`; unknown parts say so. */
export function layoutSummary(l: ResolvedLayout): string {
  const head = l.distribution === 'unknown' ? 'unknown layout' : l.title
  const first = l.version ? `${head} ${l.version}` : head
  const o = l.servicesOwner
  let services: string
  if (o.owner === 'kube-proxy') {
    const where = WHERE[l.kubeProxy.where]
    const mode = o.mode ?? l.kubeProxy.mode
    services = `kube-proxy${where ? ` ${where}` : ''}${mode ? `, ${mode}` : ''}`
  } else if (o.owner === 'unknown') services = 'Services: unknown'
  else if (o.owner === 'none') services = 'no kube-proxy'
  else services = `Services by ${SERVICES_OWNER_TITLE[o.owner]}${o.owner === 'cilium' ? ' (kube-proxy replacement)' : ''}${o.kubeProxyAlsoRunning ? ', kube-proxy also running' : ''}`
  const cni = l.cni.name === 'unknown' ? 'CNI unknown' : l.cni.name === 'other' ? `CNI ${l.cni.detail ?? 'other'}` : `${l.cni.name}${l.cni.mode ? ` ${l.cni.mode}` : ''}`
  return [first, services, cni].join(' · ')
}

/** The report's form of a resolved layout. */
export function toNodeLayout(l: ResolvedLayout): NodeLayout {
  const out: NodeLayout = {
    summary: layoutSummary(l),
    distribution: l.distribution,
    kubelet: {configPaths: [...l.kubelet.configPaths], configDirs: [...l.kubelet.configDirs], source: l.kubelet.source},
    kubeProxy: {where: l.kubeProxy.where, detail: l.kubeProxy.detail},
    cni: {name: l.cni.name},
    servicesOwner: {owner: l.servicesOwner.owner, reason: l.servicesOwner.reason},
    discovered: l.discovered,
    evidence: [...l.evidence],
  }
  if (l.version !== undefined) out.version = l.version
  const mode = l.servicesOwner.mode ?? l.kubeProxy.mode
  if (mode !== undefined) out.kubeProxy.mode = mode
  if (l.cni.mode !== undefined) out.cni.mode = l.cni.mode
  if (l.servicesOwner.kubeProxyAlsoRunning !== undefined) out.servicesOwner.kubeProxyAlsoRunning = l.servicesOwner.kubeProxyAlsoRunning
  if (l.clusterDNS !== undefined) out.clusterDNS = l.clusterDNS
  return out
}
