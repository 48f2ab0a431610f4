// Sample Reports for renderer tests and goldens, built with the real buildReport.
// Fixture conventions: nodes cp-1, worker-1..3 on 192.168.0.0/24; pods 10.244.0.0/16 in Calico /26 blocks;
// Services 10.96.0.0/12; kube-proxy in iptables mode unless said otherwise. Each call returns a fresh object.
import type {CheckSpec} from '../../src/core/checks/types.js'
import {buildReport, type CheckResult, type Finding, type Report, type ReportMetadata} from '../../src/core/model/report.js'

export const SAMPLE_CATALOG: readonly CheckSpec[] = [
  {
    id: 'KUBELET-001',
    area: 'kubelet',
    severity: 'error',
    title: 'cgroup driver differs from the container runtime',
    looksAt: 'cgroupDriver in the kubelet config and SystemdCgroup in the containerd config.',
    why: 'With two cgroup managers the node becomes unstable under pressure; pods are killed or fail to start.',
    remedy: 'Set cgroupDriver: systemd in /var/lib/kubelet/config.yaml to match containerd, then restart the kubelet.',
    requires: ['kubelet-config', 'containerd-config'],
  },
  {
    id: 'KUBELET-007',
    area: 'kubelet',
    severity: 'info',
    title: 'Read-only port enabled',
    looksAt: 'readOnlyPort in the kubelet config.',
    why: 'Port 10255 serves pod and node data without authentication.',
    remedy: 'Set readOnlyPort: 0 unless a monitoring agent still depends on it.',
    requires: ['kubelet-config'],
  },
  {
    id: 'PROXY-001',
    area: 'proxy-mode',
    severity: 'error',
    title: 'kube-proxy mode differs from its configuration',
    looksAt: 'mode in the kube-proxy ConfigMap, /proxyMode on the node, and which rule set is programmed.',
    why: 'A kube-proxy that fell back to another mode programs rules nobody expects.',
    remedy: 'Fix the kube-proxy configuration (and kernel modules for ipvs), then restart kube-proxy on the node.',
    requires: ['proxy-mode', 'cluster:configMaps'],
  },
  {
    id: 'IPT-001',
    area: 'iptables',
    severity: 'error',
    title: 'Service chain missing',
    looksAt: 'KUBE-SERVICES and KUBE-SVC-* chains in the nat table against the Services and EndpointSlices.',
    why: 'Without its chain, traffic to the Service IP is not load-balanced: connections hang or are refused.',
    remedy: 'Restart kube-proxy on the node and check its log for iptables-restore errors.',
    requires: ['iptables-save', 'cluster:services', 'cluster:endpointSlices'],
  },
  {
    id: 'IPT-002',
    area: 'iptables',
    severity: 'warning',
    title: 'Endpoint chain for a removed endpoint',
    looksAt: 'KUBE-SEP-* chains in the nat table against the ready endpoints.',
    why: 'A stale endpoint chain sends a share of the Service traffic to a pod that no longer exists.',
    remedy: 'Restart kube-proxy on the node; if it comes back, check for a second process writing KUBE-* chains.',
    requires: ['iptables-save', 'cluster:endpointSlices'],
  },
  {
    id: 'IPT-003',
    area: 'iptables',
    severity: 'error',
    title: 'Endpoint chain missing',
    looksAt: 'KUBE-SEP-* chains referenced from each KUBE-SVC-* chain.',
    why: 'A jump to a missing endpoint chain makes iptables-restore fail, so kube-proxy stops updating the node.',
    remedy: 'Restart kube-proxy on the node and check its log for iptables-restore errors.',
    requires: ['iptables-save', 'cluster:endpointSlices'],
  },
  {
    id: 'IPVS-001',
    area: 'ipvs',
    severity: 'error',
    title: 'Virtual server missing',
    looksAt: 'ipvsadm -Ln against the Services.',
    why: 'Without a virtual server, the Service IP on kube-ipvs0 accepts connections and drops them.',
    remedy: 'Restart kube-proxy on the node; check that the ip_vs modules are loaded.',
    requires: ['ipvsadm-ln', 'cluster:services'],
  },
  {
    id: 'RT-001',
    area: 'routes',
    severity: 'error',
    title: 'Route to a pod CIDR block missing',
    looksAt: 'ip route against Calico BlockAffinities: every block of another node needs a route.',
    why: 'Pods on this node cannot reach pods in that block.',
    remedy: 'Check BGP peering on calico-node (calicoctl node status) and restart calico-node on the node.',
    requires: ['ip-route', 'cluster:calico'],
  },
  {
    id: 'RT-002',
    area: 'routes',
    severity: 'warning',
    title: 'Blackhole route for a block this node does not own',
    looksAt: 'blackhole routes in ip route against the BlockAffinities of this node.',
    why: 'Traffic to the pods of that block is silently dropped on this node.',
    remedy: 'Restart calico-node on the node so Felix reprograms its routes.',
    requires: ['ip-route', 'cluster:calico'],
  },
]

export const SAMPLE_METADATA: ReportMetadata = {
  generatedAt: '2026-03-14T03:12:45Z',
  tool: {name: 'node-doctor', version: '0.1.0'},
  command: 'check --all',
  context: 'prod-eu-1',
  annotations: {proxyMode: 'iptables', kubeProxyVersion: 'v1.30.4'},
}

const IPTABLES_CHECKS = ['KUBELET-001', 'KUBELET-007', 'PROXY-001', 'IPT-001', 'IPT-002', 'IPT-003', 'RT-001', 'RT-002']

/** Results for every sample check on `node`: passed unless overridden; IPVS-001 skipped in iptables mode. */
function results(node: string, overrides: Record<string, Omit<CheckResult, 'id' | 'node' | 'area'>> = {}): CheckResult[] {
  return SAMPLE_CATALOG.map((spec) => {
    const base = {id: spec.id, node, area: spec.area}
    const o = overrides[spec.id]
    if (o) return {...base, ...o}
    if (!IPTABLES_CHECKS.includes(spec.id)) return {...base, status: 'skipped', reason: 'not applicable: kube-proxy runs in iptables mode'}
    return {...base, status: 'passed'}
  })
}

function finding(spec: string, f: Omit<Finding, 'id' | 'area' | 'severity' | 'remedy'> & Partial<Pick<Finding, 'severity' | 'remedy'>>): Finding {
  const s = SAMPLE_CATALOG.find((c) => c.id === spec)!
  return {id: s.id, area: s.area, severity: s.severity, remedy: s.remedy, ...f}
}

/** Three nodes, every applicable check passed. */
export function healthyReport(): Report {
  return buildReport({
    metadata: SAMPLE_METADATA,
    nodes: [
      {name: 'cp-1', durationMs: 812},
      {name: 'worker-1', durationMs: 1240},
      {name: 'worker-2', durationMs: 955},
    ],
    results: ['cp-1', 'worker-1', 'worker-2'].flatMap((n) => results(n)),
  })
}

/**
 * worker-1: kubelet cgroup driver drift, a Service with missing chains (grouped), a stale endpoint chain with long
 * evidence, a missing Calico route and an info; worker-2 healthy; worker-3 one warning.
 */
export function unhealthyReport(): Report {
  const findings: Finding[] = [
    finding('KUBELET-001', {
      node: 'worker-1',
      message: 'kubelet cgroupDriver is "cgroupfs" but containerd runs with SystemdCgroup = true',
      subject: {kind: 'field', name: 'cgroupDriver', in: '/var/lib/kubelet/config.yaml'},
      evidence: ['/var/lib/kubelet/config.yaml:14: cgroupDriver: cgroupfs', '/etc/containerd/config.toml:142: SystemdCgroup = true'],
    }),
    finding('KUBELET-007', {
      node: 'worker-1',
      message: 'readOnlyPort is 10255',
      subject: {kind: 'field', name: 'readOnlyPort', in: '/var/lib/kubelet/config.yaml'},
      evidence: ['/var/lib/kubelet/config.yaml:31: readOnlyPort: 10255'],
    }),
    finding('IPT-001', {
      node: 'worker-1',
      message: 'No KUBE-SVC chain for default/web:http (10.96.12.40:80/TCP, 3 ready endpoints); traffic to the cluster IP is not load-balanced',
      subject: {kind: 'chain', name: 'KUBE-SVC-4N57TFCL4MD7ZTDA', in: 'nat'},
      evidence: [
        'expected: :KUBE-SVC-4N57TFCL4MD7ZTDA - [0:0]',
        'expected: -A KUBE-SERVICES -d 10.96.12.40/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-4N57TFCL4MD7ZTDA',
      ],
      group: 'default/web:http',
    }),
    finding('IPT-003', {
      node: 'worker-1',
      message: 'Endpoint 10.244.1.23:8080 of default/web:http has no KUBE-SEP chain',
      subject: {kind: 'chain', name: 'KUBE-SEP-XPQRUCKJ3GKN6YPV', in: 'nat'},
      evidence: ['expected: -A KUBE-SEP-XPQRUCKJ3GKN6YPV -p tcp -m comment --comment default/web:http -m tcp -j DNAT --to-destination 10.244.1.23:8080'],
      group: 'default/web:http',
    }),
    finding('IPT-002', {
      node: 'worker-1',
      message: 'KUBE-SEP chain still sends payments/api:grpc traffic to 10.244.2.17:8443, which is no longer an endpoint',
      subject: {kind: 'chain', name: 'KUBE-SEP-OVEKJ3D4ZQ6NMR7X', in: 'nat'},
      evidence: [
        ':KUBE-SEP-OVEKJ3D4ZQ6NMR7X - [0:0]',
        '-A KUBE-SEP-OVEKJ3D4ZQ6NMR7X -s 10.244.2.17/32 -m comment --comment payments/api:grpc -j KUBE-MARK-MASQ',
        '-A KUBE-SEP-OVEKJ3D4ZQ6NMR7X -p tcp -m comment --comment payments/api:grpc -m tcp -j DNAT --to-destination 10.244.2.17:8443',
        '-A KUBE-SVC-TCOU7JCQXEZGVUNU -m comment --comment "payments/api:grpc -> 10.244.2.17:8443" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-OVEKJ3D4ZQ6NMR7X',
        'EndpointSlice payments/api-7dxkq: 10.244.2.17 not present (deleted 2026-03-14T02:58:10Z)',
      ],
      group: 'payments/api:grpc',
    }),
    finding('RT-001', {
      node: 'worker-1',
      message: 'No route to Calico block 10.244.3.0/26 (affine to worker-3); pods here cannot reach pods on worker-3',
      subject: {kind: 'route', name: '10.244.3.0/26'},
      evidence: ['BlockAffinity worker-3-10-244-3-0-26: state=confirmed', 'ip route: no entry for 10.244.3.0/26 (expected via 192.168.0.13 dev tunl0 proto bird onlink)'],
    }),
    finding('RT-002', {
      node: 'worker-3',
      message: 'blackhole route for 10.244.9.0/26, but the block is now affine to worker-2',
      subject: {kind: 'route', name: 'blackhole 10.244.9.0/26'},
      evidence: ['blackhole 10.244.9.0/26 proto bird'],
    }),
  ]
  return buildReport({
    metadata: SAMPLE_METADATA,
    nodes: [
      {name: 'worker-1', durationMs: 1873},
      {name: 'worker-2', durationMs: 1102},
      {name: 'worker-3', durationMs: 1450},
    ],
    findings,
    results: [
      ...results('worker-1', {
        'KUBELET-001': {status: 'failed'},
        'KUBELET-007': {status: 'failed'},
        'IPT-001': {status: 'failed'},
        'IPT-002': {status: 'failed'},
        'IPT-003': {status: 'failed'},
        'RT-001': {status: 'failed'},
      }),
      ...results('worker-2'),
      ...results('worker-3', {'RT-002': {status: 'failed'}}),
    ],
  })
}

/**
 * worker-1 unreachable (fatal ssh error, every check skipped); worker-2 in ipvs mode without ipvsadm (partial) and
 * one info; worker-3 healthy; kube-proxy logs forbidden cluster-wide.
 */
export function partialReport(): Report {
  const unreachable = Object.fromEntries(
    SAMPLE_CATALOG.map((s) => [s.id, {status: 'skipped' as const, reason: `missing input: ${s.requires.filter((r) => !r.startsWith('cluster:')).join(', ')}`}]),
  )
  return buildReport({
    metadata: {...SAMPLE_METADATA, command: 'check worker-1 worker-2 worker-3', annotations: {proxyMode: 'mixed'}},
    nodes: [{name: 'worker-1'}, {name: 'worker-2', durationMs: 2210}, {name: 'worker-3', durationMs: 980}],
    results: [
      ...results('worker-1', unreachable),
      ...results('worker-2', {
        'IPT-001': {status: 'skipped', reason: 'not applicable: kube-proxy runs in ipvs mode'},
        'IPT-002': {status: 'skipped', reason: 'not applicable: kube-proxy runs in ipvs mode'},
        'IPT-003': {status: 'skipped', reason: 'not applicable: kube-proxy runs in ipvs mode'},
        'IPVS-001': {status: 'skipped', reason: 'missing input: ipvsadm-ln'},
        'KUBELET-007': {status: 'failed'},
      }),
      ...results('worker-3'),
    ],
    findings: [
      finding('KUBELET-007', {
        node: 'worker-2',
        message: 'readOnlyPort is 10255',
        subject: {kind: 'field', name: 'readOnlyPort', in: '/var/lib/kubelet/config.yaml'},
        evidence: ['/var/lib/kubelet/config.yaml:31: readOnlyPort: 10255'],
      }),
    ],
    collectionErrors: [
      {node: 'worker-1', source: 'ssh', message: 'dial tcp 192.168.0.11:22: i/o timeout after 10s', fatal: true},
      {node: 'worker-2', source: 'ipvsadm', message: 'ipvsadm: command not found (exit 127); install ipvsadm on the node'},
      {source: 'kube-proxy logs', message: 'pods "kube-proxy-x7k2p" is forbidden: User "oncall" cannot get resource "pods/log" in the namespace "kube-system"'},
    ],
  })
}

export const SAMPLE_REPORTS = {healthy: healthyReport, unhealthy: unhealthyReport, partial: partialReport} as const
export type SampleName = keyof typeof SAMPLE_REPORTS
