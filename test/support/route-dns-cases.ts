// The fire/quiet scenarios behind test/fixtures/checks/{routes,dns,endpoints}: cluster objects built in code, and for
// routes the node-a setup that scripts/make-route-dns-fixtures.ts runs in a netns to capture real `ip` output.
// `fires` is the exact set of check ids with findings on node-a; every other id of the area passes or skips.
import type {ClusterSnapshot} from '../../src/core/model/snapshot.js'
import {
  blockAffinity,
  calicoCluster,
  calicoNodePod,
  clusterSnapshot,
  endpointSlice,
  type EndpointSpec,
  planNodes,
  pod,
  service,
} from './calico-dns-builders.js'
import type {BirdSetup} from './bird-netns.js'
import {type CalicoNodeSetup, podRoute} from './calico-netns.js'

export interface FixtureCase {
  area: 'routes' | 'dns' | 'endpoints'
  name: string
  node: string
  cluster: () => ClusterSnapshot
  /** Route scenarios only: how node-a is set up before its artifacts are captured. */
  setup?: CalicoNodeSetup
  /** Route scenarios with BGP: the BIRD sessions node-a has (real BIRD in netns; test/support/bird-netns.ts). */
  bgp?: BirdSetup
  fires: string[]
}

// --- routes ------------------------------------------------------------------------------------------------------

const WORKLOADS = {cali1111111111a: '10.244.1.5', cali2222222222b: '10.244.1.6'}
const POD_ROUTES = Object.entries(WORKLOADS).map(([dev, ip]) => podRoute(ip, dev))
const BLACKHOLE = ['blackhole', '10.244.1.0/26', 'proto', 'bird']
const IPIP_TO_B = ['10.244.2.0/26', 'via', '192.168.0.12', 'dev', 'tunl0', 'proto', 'bird', 'onlink']

const routePods = () => [
  pod('shop', 'web-a', 'node-a', '10.244.1.5', {labels: {app: 'web'}}),
  pod('shop', 'api-a', 'node-a', '10.244.1.6', {labels: {app: 'api'}}),
  pod('shop', 'web-b', 'node-b', '10.244.2.10', {labels: {app: 'web'}}),
]
const ipipCluster = () => calicoCluster({pods: routePods()})
const vxlanCluster = () => calicoCluster({ipipMode: 'Never', vxlanMode: 'Always', pods: routePods()})
const ipipNode = (routes: string[][], extra: Partial<CalicoNodeSetup> = {}): CalicoNodeSetup => ({workloads: WORKLOADS, routes, ...extra})

const without = (list: string[][], drop: string[]) => list.filter((r) => r !== drop)
const BASE_ROUTES = [BLACKHOLE, ...POD_ROUTES, IPIP_TO_B]

export const ROUTE_CASES: FixtureCase[] = [
  {area: 'routes', name: 'healthy-ipip', node: 'node-a', cluster: ipipCluster, setup: ipipNode(BASE_ROUTES), bgp: {}, fires: []},
  {
    area: 'routes',
    name: 'healthy-vxlan',
    node: 'node-a',
    cluster: vxlanCluster,
    setup: {
      workloads: WORKLOADS,
      vxlanAddr: '10.244.1.0',
      tunlAddr: '',
      routes: [
        ['blackhole', '10.244.1.0/26', 'proto', '80'],
        ...POD_ROUTES,
        ['10.244.2.0', 'dev', 'vxlan.calico', 'scope', 'link'],
        ['10.244.2.0/26', 'via', '10.244.2.0', 'dev', 'vxlan.calico', 'proto', '80', 'onlink'],
      ],
    },
    fires: [],
  },
  {area: 'routes', name: 'missing-route', node: 'node-a', cluster: ipipCluster, setup: ipipNode(without(BASE_ROUTES, IPIP_TO_B)), fires: ['RT-001']},
  {
    area: 'routes',
    name: 'stale-route',
    node: 'node-a',
    cluster: () => {
      const c = ipipCluster()
      c.calico.blockAffinities.push(blockAffinity('node-d', '10.244.4.0/26'))
      return c
    },
    setup: ipipNode([...BASE_ROUTES, ['10.244.4.0/26', 'via', '192.168.0.14', 'dev', 'tunl0', 'proto', 'bird', 'onlink']]),
    fires: ['RT-002'],
  },
  {
    area: 'routes',
    name: 'switched-encap',
    node: 'node-a',
    cluster: vxlanCluster,
    setup: ipipNode(BASE_ROUTES, {vxlanAddr: '10.244.1.1'}),
    fires: ['RT-003'],
  },
  {area: 'routes', name: 'missing-blackhole', node: 'node-a', cluster: ipipCluster, setup: ipipNode(without(BASE_ROUTES, BLACKHOLE)), fires: ['RT-004']},
  {area: 'routes', name: 'pod-route-missing', node: 'node-a', cluster: ipipCluster, setup: ipipNode(without(BASE_ROUTES, POD_ROUTES[1]!)), fires: ['RT-005']},
  {
    area: 'routes',
    name: 'orphan-pod-route',
    node: 'node-a',
    cluster: ipipCluster,
    setup: {workloads: {...WORKLOADS, cali3333333333c: '10.244.1.20'}, routes: [...BASE_ROUTES, podRoute('10.244.1.20', 'cali3333333333c')]},
    fires: ['RT-006'],
  },
  {
    // A BGPPeer to the top-of-rack router (192.168.0.1, AS 64513) that does not speak BGP: the mesh to node-b is
    // Established, the global peer stays Active with "Socket: Connection refused".
    area: 'routes',
    name: 'bgp-peer-down',
    node: 'node-a',
    cluster: ipipCluster,
    setup: ipipNode(BASE_ROUTES),
    bgp: {extraPeers: [{kind: 'Global', ip: '192.168.0.1', as: 64513, speaks: false}]},
    fires: ['RT-008'],
  },
  {
    area: 'routes',
    name: 'calico-node-crashloop',
    node: 'node-a',
    cluster: () => {
      const c = ipipCluster()
      c.pods = c.pods.map((p) => (p.metadata.name === 'calico-node-axyz' ? calicoNodePod('node-a', {ready: false, waiting: 'CrashLoopBackOff', restarts: {count: 7, agoSeconds: 40}}) : p))
      return c
    },
    setup: ipipNode(BASE_ROUTES),
    fires: ['RT-007'],
  },
]

// --- dns and endpoints ---------------------------------------------------------------------------------------------

const DNS = {'k8s-app': 'kube-dns'}
const WEB = {app: 'web'}
const DNS_EPS: EndpointSpec[] = [
  {ip: '10.244.1.2', node: 'node-a', pod: 'coredns-a'},
  {ip: '10.244.2.2', node: 'node-b', pod: 'coredns-b'},
]
const WEB_EPS: EndpointSpec[] = [
  {ip: '10.244.1.10', node: 'node-a', pod: 'web-a'},
  {ip: '10.244.2.10', node: 'node-b', pod: 'web-b'},
]

function serviceWorld(o: {coredns?: boolean; corednsA?: Parameters<typeof pod>[4]; dnsEps?: EndpointSpec[]; webEps?: EndpointSpec[]} = {}): ClusterSnapshot {
  const coredns = o.coredns === false ? [] : [pod('kube-system', 'coredns-a', 'node-a', '10.244.1.2', {labels: DNS, ...o.corednsA}), pod('kube-system', 'coredns-b', 'node-b', '10.244.2.2', {labels: DNS})]
  return clusterSnapshot({
    nodes: planNodes(['node-a', 'node-b']),
    services: [
      service('default', 'kubernetes', '10.96.0.1', undefined),
      {...service('kube-system', 'kube-dns', '10.96.0.10', DNS), spec: {...service('kube-system', 'kube-dns', '10.96.0.10', DNS).spec, ports: [{name: 'dns', protocol: 'UDP', port: 53}, {name: 'dns-tcp', protocol: 'TCP', port: 53}]}},
      service('shop', 'web', '10.96.1.1', WEB),
    ],
    endpointSlices: [
      endpointSlice('default', 'kubernetes', [{ip: '192.168.0.11'}], {managedBy: 'endpointslicemirroring-controller.k8s.io'}),
      endpointSlice('kube-system', 'kube-dns', o.dnsEps ?? DNS_EPS),
      endpointSlice('shop', 'web', o.webEps ?? WEB_EPS),
    ],
    pods: [...coredns, pod('shop', 'web-a', 'node-a', '10.244.1.10', {labels: WEB}), pod('shop', 'web-b', 'node-b', '10.244.2.10', {labels: WEB})],
  })
}

export const DNS_CASES: FixtureCase[] = [
  {area: 'dns', name: 'healthy', node: 'node-a', cluster: () => serviceWorld(), fires: []},
  {area: 'dns', name: 'coredns-scaled-to-zero', node: 'node-a', cluster: () => serviceWorld({coredns: false, dnsEps: []}), fires: ['DNS-001']},
  {
    area: 'dns',
    name: 'coredns-crashloop',
    node: 'node-a',
    cluster: () => serviceWorld({corednsA: {ready: false, waiting: 'CrashLoopBackOff', restarts: {count: 9, agoSeconds: 50}}, dnsEps: [{...DNS_EPS[0]!, ready: false}, DNS_EPS[1]!]}),
    fires: ['DNS-002'],
  },
  {
    area: 'dns',
    name: 'stale-dns-endpoint',
    node: 'node-a',
    cluster: () => serviceWorld({dnsEps: [...DNS_EPS, {ip: '10.244.1.99', node: 'node-a', pod: 'coredns-old'}]}),
    fires: ['DNS-003'],
  },
]

// DNS-004: the same Services on a Calico cluster whose node-a routes are captured for real; coredns-b (10.244.2.2)
// sits in node-b's block 10.244.2.0/26.
function routedDnsWorld(): ClusterSnapshot {
  const world = serviceWorld()
  const calico = calicoCluster({pods: world.pods})
  return {...world, nodes: calico.nodes, pods: calico.pods, calico: calico.calico}
}
const DNS_WORKLOADS = {cali1111111111a: '10.244.1.2', cali2222222222b: '10.244.1.10'}
const DNS_POD_ROUTES = Object.entries(DNS_WORKLOADS).map(([dev, ip]) => podRoute(ip, dev))

DNS_CASES.push(
  {area: 'dns', name: 'healthy-routed', node: 'node-a', cluster: routedDnsWorld, setup: {workloads: DNS_WORKLOADS, routes: [BLACKHOLE, ...DNS_POD_ROUTES, IPIP_TO_B]}, fires: []},
  {area: 'dns', name: 'coredns-unreachable', node: 'node-a', cluster: routedDnsWorld, setup: {workloads: DNS_WORKLOADS, routes: [BLACKHOLE, ...DNS_POD_ROUTES]}, fires: ['DNS-004']},
)

export const ENDPOINT_CASES: FixtureCase[] = [
  {area: 'endpoints', name: 'healthy', node: 'node-a', cluster: () => serviceWorld(), fires: []},
  {area: 'endpoints', name: 'stale-endpoint', node: 'node-a', cluster: () => serviceWorld({webEps: [...WEB_EPS, {ip: '10.244.1.11', node: 'node-a', pod: 'web-gone'}]}), fires: ['EP-001']},
  {area: 'endpoints', name: 'missing-endpoint', node: 'node-a', cluster: () => serviceWorld({webEps: [WEB_EPS[1]!]}), fires: ['EP-002']},
]

/** cases.json per area: each id's fire case, and its quiet case (`quiet`, or the one named in `quietFor`). */
export function casesJson(cases: readonly FixtureCase[], quiet: string, quietFor: Record<string, string> = {}): Record<string, {fire: string; quiet: string; node: string}> {
  const out: Record<string, {fire: string; quiet: string; node: string}> = {}
  for (const c of cases) for (const id of c.fires) out[id] = {fire: c.name, quiet: quietFor[id] ?? quiet, node: c.node}
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
}
