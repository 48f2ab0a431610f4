// A Calico IPIP cluster for trace tests, on the IP plan of test/support/calico-dns-builders.ts and the node-a
// workloads of test/support/route-dns-cases.ts (whose routes test/fixtures/checks/routes/* captured in a netns):
// kube-system/coredns-a 10.244.1.5 on cali1111111111a and shop/api-a 10.244.1.6 on cali2222222222b (node-a),
// kube-system/coredns-b 10.244.2.10 and the not-ready coredns-c 10.244.2.11 (node-b); kube-dns 10.96.0.10.
// The node's filter table carries Calico's workload chains next to kube-proxy's. Their layout follows Calico v3's
// (cali-FORWARD → cali-from-wl-dispatch by interface name → cali-fw-<iface> → profile; "Unknown interface" DROP);
// the cali-FORWARD rules are those of test/fixtures/iptables/capture.ts, the rest is written from Calico's chain
// layout (NOTE: the per-workload chains are not captured from a running Felix, which this machine cannot run).
import type {KubeObject} from '../../../../src/core/model/k8s.js'
import {generateIptablesRestore} from '../../../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../../../src/core/proxier/iptables/save.js'
import {buildRenderInput, type RenderInput} from '../../../../src/core/proxier/render-input.js'
import {blockAffinity, endpointSlice, ipamBlock, ipPool, NODES, planNodes, pod, service} from '../../../support/calico-dns-builders.js'

export const WORKLOADS: Record<string, string> = {cali1111111111a: '10.244.1.5', cali2222222222b: '10.244.1.6'}
export const KUBE_PROXY_CONFIG = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.244.0.0/16\n'

/** Nodes, pods, kube-dns and its EndpointSlice, Calico pool/blocks, the kube-proxy ConfigMap and DaemonSet. */
export function calicoTraceObjects(): KubeObject[] {
  const dns = service('kube-system', 'kube-dns', '10.96.0.10', {'k8s-app': 'kube-dns'}, {
    ports: [
      {name: 'dns', protocol: 'UDP', port: 53, targetPort: 53},
      {name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 53},
    ],
  })
  const slice = endpointSlice('kube-system', 'kube-dns', [
    {ip: '10.244.1.5', node: 'node-a', pod: 'coredns-a'},
    {ip: '10.244.2.10', node: 'node-b', pod: 'coredns-b'},
    {ip: '10.244.2.11', node: 'node-b', pod: 'coredns-c', ready: false},
  ])
  slice.ports = [
    {name: 'dns', protocol: 'UDP', port: 53},
    {name: 'dns-tcp', protocol: 'TCP', port: 53},
  ]
  const dnsLabels = {labels: {'k8s-app': 'kube-dns'}}
  return [
    ...planNodes(['node-a', 'node-b']),
    pod('kube-system', 'coredns-a', 'node-a', '10.244.1.5', dnsLabels),
    pod('shop', 'api-a', 'node-a', '10.244.1.6', {labels: {app: 'api'}}),
    pod('kube-system', 'coredns-b', 'node-b', '10.244.2.10', dnsLabels),
    pod('kube-system', 'coredns-c', 'node-b', '10.244.2.11', {...dnsLabels, ready: false}),
    dns,
    slice,
    ipPool('default-ipv4-ippool', '10.244.0.0/16', {ipipMode: 'Always'}),
    ...(['node-a', 'node-b'] as const).flatMap((n) => [blockAffinity(n, NODES[n].block), ipamBlock(NODES[n].block, n)]),
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
    {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.2'}]}}}} as KubeObject,
  ]
}

/** kube-proxy's rules for `node` from the objects (iptables-save text). */
export function kubeProxyRules(objects: KubeObject[], node: string): {render: RenderInput; save: string} {
  const by = (k: string) => objects.filter((o) => o.kind === k)
  const render = buildRenderInput(
    {services: by('Service'), endpointSlices: by('EndpointSlice'), nodes: by('Node'), configMaps: by('ConfigMap'), serviceCIDRs: [], daemonSets: by('DaemonSet'), other: [], pods: by('Pod')} as never,
    {nodeName: node, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.244.0.0/16'}, facts: {nfacct: false, family: 'ipv4'}},
  )
  return {render, save: serializeSave(generateIptablesRestore(render.input).ruleset)}
}

/** Calico's filter chains for a node with these workload interfaces, as `iptables-restore --noflush` input. */
export function calicoFilterRestore(workloads: readonly string[]): string {
  const fw = workloads.flatMap((w) => [
    `-A cali-fw-${w} -m comment --comment "cali:fw-ct-${w.slice(4, 8)}" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
    `-A cali-fw-${w} -m comment --comment "cali:fw-inv-${w.slice(4, 8)}" -m conntrack --ctstate INVALID -j DROP`,
    `-A cali-fw-${w} -m comment --comment "cali:fw-clr-${w.slice(4, 8)}" -j MARK --set-xmark 0x0/0x10000`,
    `-A cali-fw-${w} -m comment --comment "cali:fw-pro-${w.slice(4, 8)}" -j cali-pro-kns.default`,
    `-A cali-fw-${w} -m comment --comment "cali:fw-ret-${w.slice(4, 8)}" -m comment --comment "Return if profile accepted" -m mark --mark 0x10000/0x10000 -j RETURN`,
    `-A cali-fw-${w} -m comment --comment "cali:fw-drp-${w.slice(4, 8)}" -m comment --comment "Drop if no profiles matched" -j DROP`,
  ])
  return [
    '*filter',
    ':cali-FORWARD - [0:0]',
    ':cali-from-hep-forward - [0:0]',
    ':cali-from-wl-dispatch - [0:0]',
    ':cali-to-wl-dispatch - [0:0]',
    ':cali-pro-kns.default - [0:0]',
    ...workloads.map((w) => `:cali-fw-${w} - [0:0]`),
    '-A FORWARD -m comment --comment "cali:wUHhoiAYhphO9Mso" -j cali-FORWARD',
    '-A FORWARD -m comment --comment "cali:S93hcgKJrXEqnTfs" -m comment --comment "Policy explicitly accepted packet." -m mark --mark 0x10000/0x10000 -j ACCEPT',
    '-A cali-FORWARD -m comment --comment "cali:vjrMJCRpqwy5oRoX" -j MARK --set-xmark 0x0/0xe0000',
    '-A cali-FORWARD -m comment --comment "cali:A_sPAO0mcxbT9mOV" -m mark --mark 0x0/0x10000 -j cali-from-hep-forward',
    '-A cali-FORWARD -i cali+ -m comment --comment "cali:8ZoYfO5HKXWbB3pk" -j cali-from-wl-dispatch',
    '-A cali-FORWARD -o cali+ -m comment --comment "cali:jdEuaPBe14V2hutn" -j cali-to-wl-dispatch',
    ...workloads.map((w) => `-A cali-from-wl-dispatch -i ${w} -m comment --comment "cali:disp-${w.slice(4, 8)}" -g cali-fw-${w}`),
    '-A cali-from-wl-dispatch -m comment --comment "cali:zTj6P0TIgYvgz-md" -m comment --comment "Unknown interface" -j DROP',
    '-A cali-pro-kns.default -m comment --comment "cali:pro-accept" -j MARK --set-xmark 0x10000/0x10000',
    '-A cali-pro-kns.default -m comment --comment "cali:pro-return" -m mark --mark 0x10000/0x10000 -j RETURN',
    ...fw,
    'COMMIT',
    '',
  ].join('\n')
}

/** What iptables-save prints after both were loaded: Calico's chain declarations and rules merged into *filter. */
export function mergeSave(save: string, restore: string): string {
  const decls = restore.split('\n').filter((l) => l.startsWith(':'))
  const rules = restore.split('\n').filter((l) => l.startsWith('-A'))
  const lines = save.split('\n')
  const start = lines.indexOf('*filter')
  const commit = lines.indexOf('COMMIT', start)
  let lastDecl = start
  for (let i = start + 1; i < commit; i++) if (lines[i]!.startsWith(':')) lastDecl = i
  return [...lines.slice(0, lastDecl + 1), ...decls, ...lines.slice(lastDecl + 1, commit), ...rules, ...lines.slice(commit)].join('\n')
}
