// Catalog entries for the Calico route checks (area `routes`).
import type {CheckSpec} from '../types.js'

const BLOCK_LOOKS_AT =
  "The node's route table (`ip -d route show table all`, main table; `ip -6 route` when collected) against the routes Calico should program: " +
  "per IPAM block (BlockAffinities, IPAMBlocks; Node podCIDRs when the cluster shows no Calico IPAM data) and the IPPool's ipipMode/vxlanMode, " +
  'with next hops from the Node annotations projectcalico.org/IPv4Address and IPv4VXLANTunnelAddr.'

const RESYNC =
  "Then make Calico reprogram this node: `kubectl node-doctor fix calico-node NODE` (deletes the node's calico-node pod; the DaemonSet recreates it), " +
  'or `kubectl -n kube-system delete pod <calico-node pod on NODE>` (namespace calico-system with the Tigera operator); ' +
  '`kubectl -n kube-system rollout restart ds/calico-node` does every node.'

export const RT_MISSING_BLOCK_ROUTE: CheckSpec = {
  id: 'RT-001',
  area: 'routes',
  severity: 'error',
  title: "A route to another node's Calico block is missing",
  looksAt: BLOCK_LOOKS_AT,
  why:
    "Without the route, packets from this node's pods (and the node itself) to the other node's pods follow the default route and are dropped: " +
    'cross-node pod traffic and Services backed by those pods time out from here. In IPIP/BGP mode it means the BGP session to that node is down ' +
    '(BIRD withdrew its routes); in VXLAN mode Felix did not program it.',
  remedy:
    'On this node run `calicoctl node status`: the peer for the other node must be `Established`. `Connect`/`Active` means TCP 179 is blocked between the nodes, ' +
    "or the peer address is wrong: compare the other node's `projectcalico.org/IPv4Address` annotation (`kubectl get node OTHER -o yaml`) with its real IP and fix " +
    '`IP_AUTODETECTION_METHOD` on the calico-node DaemonSet. VXLAN-only clusters have no BGP: check Felix logs ' +
    '(`kubectl -n kube-system logs <calico-node pod on NODE> -c calico-node | grep -i vxlan`). ' +
    RESYNC,
  requires: ['ip-route', 'cluster:nodes'],
}

export const RT_STALE_ROUTE: CheckSpec = {
  id: 'RT-002',
  area: 'routes',
  severity: 'warning',
  title: 'A stale route to a Calico block no node owns, or via a removed node',
  looksAt: BLOCK_LOOKS_AT + ' A route inside an IPPool whose block has no owner, whose owner node is gone, or whose next hop is no current node.',
  why:
    'Calico withdraws routes when a node or block goes away; one that stays means the routing daemon missed the change. Today it sends traffic into ' +
    'a dead next hop; when the range is handed to a new node, this route shadows or fights the new one and those pods become unreachable from here.',
  remedy:
    '`calicoctl ipam check` lists blocks and IPs leaked by deleted nodes; `kubectl get blockaffinities.crd.projectcalico.org,ipamblocks.crd.projectcalico.org` ' +
    'shows who owns what. Remove a deleted node\'s Calico data with `calicoctl delete node NAME` and release leaks with ' +
    '`calicoctl ipam release --from-report=REPORT`. ' +
    RESYNC +
    ' As a stopgap on the node: `ip route del <dst>`.',
  requires: ['ip-route', 'cluster:nodes'],
}

export const RT_WRONG_ROUTE: CheckSpec = {
  id: 'RT-003',
  area: 'routes',
  severity: 'error',
  title: 'A Calico block is routed via the wrong gateway or device',
  looksAt: BLOCK_LOOKS_AT,
  why:
    'A block route through the wrong device or next hop sends pod traffic into a tunnel the pool no longer uses (after ipipMode/vxlanMode changed), ' +
    'to an address the other node does not answer on (IP autodetected on the wrong NIC), or into a blackhole. Cross-node pod traffic to those pods fails ' +
    'while everything else looks healthy. A route for one of this node\'s own blocks sends its local pods\' traffic away.',
  remedy:
    'Compare the IPPool (`kubectl get ippools.crd.projectcalico.org -o yaml`: ipipMode, vxlanMode) with the routes: the `CALICO_IPV4POOL_IPIP`/`_VXLAN` env vars ' +
    'only apply when the pool is first created, so change the pool itself (`calicoctl patch ippool NAME -p \'{"spec":{"ipipMode":"Never","vxlanMode":"Always"}}\'`). ' +
    "Check the other node's `projectcalico.org/IPv4Address` and `IPv4VXLANTunnelAddr` annotations are its real addresses (`IP_AUTODETECTION_METHOD`). " +
    'Two nodes claiming one block: `calicoctl ipam check`. ' +
    RESYNC,
  requires: ['ip-route', 'cluster:nodes'],
}

export const RT_MISSING_BLACKHOLE: CheckSpec = {
  id: 'RT-004',
  area: 'routes',
  severity: 'warning',
  title: 'The blackhole route for one of this node\'s Calico blocks is missing',
  looksAt: "The node's route table for a `blackhole <block>` per block with a confirmed affinity to this node (not judged when blocks come from podCIDRs).",
  why:
    'BIRD (or Felix) installs a blackhole for each block it owns and advertises, so traffic to an unused address of the block fails at once instead of ' +
    'following the default route out of the node. A missing blackhole usually means the routing daemon is not programming this node\'s blocks, and then ' +
    'other nodes may not be learning routes to them either.',
  remedy:
    'Run `calicoctl node status` on the node (is BIRD running and are peers Established?), and check the affinity is confirmed: ' +
    '`kubectl get blockaffinities.crd.projectcalico.org -o custom-columns=NAME:.metadata.name,NODE:.spec.node,CIDR:.spec.cidr,STATE:.spec.state | grep NODE`. ' +
    RESYNC,
  requires: ['ip-route', 'cluster:nodes'],
}

export const RT_POD_ROUTE_MISSING: CheckSpec = {
  id: 'RT-005',
  area: 'routes',
  severity: 'error',
  title: 'A pod on this node has no /32 route to its cali interface',
  looksAt:
    "Pods scheduled on this node with a pod IP (not hostNetwork, not finished or terminating, older than 30 s) against the node's routes: each IP needs " +
    '`<podIP> dev cali<11 hex> scope link`.',
  why:
    'Felix adds that route when the pod\'s WorkloadEndpoint appears; without it nothing reaches the pod, not even the node (kubelet probes fail, the pod ' +
    'flaps Ready), and traffic to it from other nodes is dropped here. A route marked `linkdown` means the veth peer inside the pod is down.',
  remedy:
    "Check the node's calico-node pod is Ready and what Felix says: `kubectl -n kube-system logs <calico-node pod on NODE> -c calico-node | grep -iE 'route|workload|error'`. " +
    'Check the WorkloadEndpoint exists: `calicoctl get workloadendpoints -n NS -o wide | grep POD`. ' +
    RESYNC +
    ' If the route is still missing, delete the pod so the CNI plumbs it again: `kubectl -n NS delete pod POD`.',
  requires: ['ip-route', 'cluster:pods'],
}

export const RT_ORPHAN_POD_ROUTE: CheckSpec = {
  id: 'RT-006',
  area: 'routes',
  severity: 'warning',
  title: 'A cali* /32 route has no pod on this node',
  looksAt: "Host routes to cali* interfaces in the node's route table against the IPs of pods scheduled on this node.",
  why:
    'A pod route that outlived its pod (CNI DEL or Felix cleanup did not run) is harmless until the IP is reused: then traffic to the new pod is sent into the ' +
    'dead veth on this node. When the IP already belongs to a pod elsewhere, that is happening now (the finding is then an error).',
  remedy:
    'Look for the leftover interface (`ip -d link show | grep cali`) and any pod sandbox still holding it (`crictl pods`). `calicoctl ipam check` reports the ' +
    'leaked IP. ' +
    RESYNC +
    ' Felix removes routes of workloads it does not know. As a stopgap on the node: `ip route del <ip> dev <cali interface>`.',
  requires: ['ip-route', 'cluster:pods'],
}

export const RT_CALICO_NODE_UNHEALTHY: CheckSpec = {
  id: 'RT-007',
  area: 'routes',
  severity: 'error',
  title: "This node's calico-node pod is missing, not ready or restarting",
  looksAt: 'Pods labelled k8s-app=calico-node scheduled on this node: Ready condition, container states, restarts within the hour before collection.',
  why:
    'calico-node runs Felix (pod routes, policy, VXLAN routes) and BIRD (BGP routes, blackholes). Not ready usually means BGP peers are down or the datastore ' +
    'is unreachable; while it restarts, routes are withdrawn and re-added, so pods on and towards this node lose connectivity intermittently. No pod at all ' +
    'means nothing programs new pods\' routes or policy here.',
  remedy:
    '`kubectl -n kube-system describe pod <pod>` (failing probe: `calico/node is not ready: BIRD is not ready` means BGP peers are down; see `calicoctl node status`), ' +
    '`kubectl -n kube-system logs <pod> -c calico-node --previous` for the crash. No pod on the node: check the DaemonSet\'s tolerations and nodeSelector against ' +
    'the node\'s taints (`kubectl -n kube-system get ds calico-node -o wide`, `kubectl describe node NODE`). ' +
    '`kubectl node-doctor fix calico-node NODE` deletes the pod so the DaemonSet recreates it; `kubectl -n kube-system rollout restart ds/calico-node` restarts all.',
  requires: ['cluster:pods'],
}

export const RT_BGP_PEER_DOWN: CheckSpec = {
  id: 'RT-008',
  area: 'routes',
  severity: 'error',
  title: 'A Calico BGP peer of this node is not Established',
  looksAt:
    "BIRD's protocol table on the node (`birdcl -s /var/run/calico/bird.ctl show protocols`, and bird6.ctl for IPv6), else `calicoctl node status`: " +
    "each BGP session's peer (Calico names them Mesh_/Global_/Node_<peer IP>), BIRD state, since, BGP state and last error. " +
    'Skipped when the cluster has no Calico, when calico-node runs without BGP (CALICO_NETWORKING_BACKEND vxlan or none; VXLAN-only pools), or when neither output was collected.',
  why:
    "In BGP mode (IPIP or unencapsulated pools) a node learns every other node's pod blocks over its BGP sessions. A session that is not Established " +
    "means no routes from that peer: this node's pods cannot reach the peer's pods (RT-001 follows), and the peer cannot reach ours. " +
    'Connect/Active with a socket error means TCP 179 does not get through or the peer address is wrong (IP autodetected on the wrong interface); ' +
    'Passive means the peer has not connected to us (in the full mesh the node with the lower address connects); ' +
    'OpenSent/OpenConfirm or "Received: ..." errors point at AS numbers or passwords that do not match; a session that is down was disabled or stopped after errors. ' +
    "calico-node's readiness probe fails with \"BIRD is not ready\" while sessions are down.",
  remedy:
    "Compare the peer address with the peer node's real IP and its `projectcalico.org/IPv4Address` annotation (`kubectl get node PEER -o yaml`); " +
    'a wrong address is fixed with `IP_AUTODETECTION_METHOD` on the calico-node DaemonSet (e.g. `interface=eth0` or `kubernetes-internal-ip`). ' +
    'Check that TCP 179 is allowed between the nodes in both directions (security groups, host firewalls: `nc -zv PEER 179` from this node) ' +
    "and that calico-node runs on the peer. For global/node-specific peers, check the BGPPeer's asNumber and password against the router. " +
    RESYNC,
  requires: ['cluster:nodes'],
}

export const ROUTES_SPECS: readonly CheckSpec[] = [
  RT_MISSING_BLOCK_ROUTE,
  RT_STALE_ROUTE,
  RT_WRONG_ROUTE,
  RT_MISSING_BLACKHOLE,
  RT_POD_ROUTE_MISSING,
  RT_ORPHAN_POD_ROUTE,
  RT_CALICO_NODE_UNHEALTHY,
  RT_BGP_PEER_DOWN,
]
