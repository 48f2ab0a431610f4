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

const FLANNEL_LOOKS_AT =
  "Each other Node's flannel lease as the kube subnet manager publishes it (spec.podCIDR and the flannel.alpha.coreos.com/backend-type, " +
  'public-ip and backend-data {"VNI":1,"VtepMAC":"..."} annotations flanneld writes on its node), against this node\'s state. The backend is this ' +
  "node's backend-type annotation, else the layout's (link flannel.1: vxlan; cni0 alone: host-gw). IPv4 only; wireguard and other backends are not modelled."

const FLANNEL_RESYNC =
  'flanneld re-adds the routes, neighbour and FDB entries of every lease when it starts: restart it on this node ' +
  '(`kubectl -n kube-flannel delete pod <kube-flannel pod on NODE>`; namespace kube-system in older manifests; on k3s, whose flannel is embedded, ' +
  '`systemctl restart k3s` or `systemctl restart k3s-agent`).'

/** The remedy of RT-009's cni0 finding (also part of the catalog remedy). */
export const RT_FLANNEL_CNI0_REMEDY =
  'cni0 with an old podCIDR: drain the node (`kubectl drain NODE --ignore-daemonsets`), `ip link delete cni0` on it (the bridge plugin recreates it ' +
  'with the address of the current podCIDR for the next pod), then `kubectl uncordon NODE`.'

export const RT_FLANNEL_ROUTE: CheckSpec = {
  id: 'RT-009',
  area: 'routes',
  severity: 'error',
  title: "A flannel route to another node's podCIDR is missing or wrong",
  looksAt:
    FLANNEL_LOOKS_AT +
    ' Routes (`ip -d route show table all`, main table): vxlan `<podCIDR> via <podCIDR network address> dev flannel.1 onlink` (or `via <public-ip>` ' +
    'for a node on the same subnet with DirectRouting); host-gw `<podCIDR> via <public-ip>`. This node\'s own podCIDR must sit on cni0 (not routed away, ' +
    'and cni0 must not carry an older podCIDR); routes through flannel.1 to no current lease are reported as stale (warning).',
  why:
    "Without the route, traffic from this node to the other node's pods follows the default route and is lost: cross-node pod traffic and Services " +
    "backed by those pods time out from here. A route through the wrong gateway sends it to an old VTEP or a host that no longer has that podCIDR. " +
    "When cni0 keeps an address from an earlier podCIDR, new pods fail to start (the bridge plugin reports that cni0 already has an IP address " +
    'different from the one it wants).',
  remedy:
    "Compare `ip route show | grep -E 'flannel|cni0'` on the node with `kubectl get nodes -o custom-columns=NAME:.metadata.name,CIDR:.spec.podCIDR` and " +
    "each node's annotations (`kubectl get node OTHER -o yaml | grep flannel.alpha.coreos.com`). Check flanneld's log on this node for errors " +
    '(`kubectl -n kube-flannel logs <kube-flannel pod on NODE>`). ' +
    FLANNEL_RESYNC +
    ' ' +
    RT_FLANNEL_CNI0_REMEDY,
  requires: ['ip-route', 'cluster:nodes'],
}

export const RT_FLANNEL_NEIGH: CheckSpec = {
  id: 'RT-010',
  area: 'routes',
  severity: 'error',
  title: "flannel.1 has no neighbour entry, or a wrong MAC, for another node's VXLAN gateway",
  looksAt:
    FLANNEL_LOOKS_AT +
    ' Neighbour table (`ip -j neigh show`): per remote vxlan lease a PERMANENT entry on flannel.1 for the podCIDR network address with the VtepMAC ' +
    'from backend-data. Not judged for nodes reached by a direct route.',
  why:
    'flannel.1 is created without learning, so the kernel cannot resolve the gateway of the route by itself: flanneld installs the entry. ' +
    "Without it the packets are not sent; with a stale MAC (the other node's flannel.1 was recreated with a new MAC) they are encapsulated for a VTEP " +
    "that drops them. Either way pods here cannot reach that node's pods.",
  remedy:
    'Compare `ip neigh show dev flannel.1` with the VtepMAC in the other node\'s `flannel.alpha.coreos.com/backend-data` annotation and with ' +
    '`ip -d link show flannel.1` on that node. ' +
    FLANNEL_RESYNC +
    ' If the annotation itself is wrong, restart flanneld on the other node: it rewrites its annotations.',
  requires: ['cluster:nodes'],
  requiresWhereApplicable: ['ip-neigh'],
}

export const RT_FLANNEL_FDB: CheckSpec = {
  id: 'RT-011',
  area: 'routes',
  severity: 'error',
  title: "flannel.1's forwarding database has no entry, or a wrong destination, for another node's VTEP",
  looksAt:
    FLANNEL_LOOKS_AT +
    ' Forwarding database (`bridge -j fdb show`): per remote vxlan lease an entry `<VtepMAC> dev flannel.1 dst <public-ip> self permanent`. ' +
    'Not judged for nodes reached by a direct route.',
  why:
    'The FDB entry tells flannel.1 which underlay address the VTEP MAC lives at. Without it the encapsulated packets have no destination and are ' +
    "dropped; with an old destination (the other node's address changed) they go to the wrong host. Pods here cannot reach that node's pods.",
  remedy:
    'Compare `bridge fdb show dev flannel.1` with the other node\'s `flannel.alpha.coreos.com/public-ip` and backend-data annotations. ' +
    'A wrong public-ip annotation (a node with several addresses) is fixed on that node with flanneld\'s `--iface` or `--public-ip` flag or the ' +
    '`flannel.alpha.coreos.com/public-ip-overwrite` annotation. ' +
    FLANNEL_RESYNC,
  requires: ['cluster:nodes'],
  requiresWhereApplicable: ['bridge-fdb'],
}

export const RT_VPC_POD_ROUTE: CheckSpec = {
  id: 'RT-012',
  area: 'routes',
  severity: 'error',
  title: 'A pod on this node has no host route (Amazon VPC CNI, Azure CNI transparent mode)',
  looksAt:
    'Pods the API says run on this node (spec.nodeName; not hostNetwork, not finished or terminating, older than 30 s) against the per-pod host routes ' +
    'these CNIs add in the main table: Amazon VPC CNI `<pod IP> dev eni<hash> scope link` (any host veth name: AWS_VPC_K8S_CNI_VETHPREFIX can change it; ' +
    'security-group pods in strict mode are routed in their VLAN table, so any table counts for pods with the vpc.amazonaws.com/pod-eni annotation), ' +
    'Azure CNI transparent mode `<pod IP> dev azv<hash>`. A host route to an eni*/azv* device with no pod behind it is reported as info. ' +
    'Azure CNI in bridge mode (no azv* routes) is not judged.',
  why:
    'With a VPC CNI the pod IP is a VPC address routed to the node by the cloud; on the node only the host route sends it into the pod\'s veth. ' +
    'Without it nothing reaches the pod, not even kubelet probes from this node, and traffic from other nodes and Services is dropped here.',
  remedy:
    'Check the CNI agent on the node (`kubectl -n kube-system logs <aws-node pod on NODE> -c aws-node`; on the node /var/log/aws-routed-eni/plugin.log ' +
    'and ipamd.log; Azure: /var/log/azure-vnet.log). Delete the pod so the CNI plumbs it again: `kubectl -n NS delete pod POD`. ' +
    'A route left behind by a deleted pod: `ip route del <ip> dev <device>`.',
  requires: ['ip-route', 'cluster:pods'],
}

const CILIUM_LOOKS_AT =
  "The node's main route table (`ip -d route show table all`, IPv4) against the routes Cilium's agent installs in the routing mode " +
  'kube-system/cilium-config names (routing-mode, or the older tunnel key; auto-direct-node-routes; ipam), with each node\'s pod CIDRs from its ' +
  'CiliumNode (spec.ipam.podCIDRs and spec.ipam.pools.allocated; Node spec.podCIDRs with ipam kubernetes when CiliumNodes cannot be read) and ' +
  "cilium_host's address from the node. Route protocol, metric and MTU are not judged; IPv6, routing-mode hybrid, cloud IPAM modes " +
  '(eni, azure, alibabacloud, delegated-plugin) and GKE Dataplane V2 are not judged. Routes to CIDRs no CiliumNode owns are not reported (they may belong to Cluster Mesh peers).'

const CILIUM_RESYNC =
  "The agent re-installs these routes when it starts: restart this node's agent (`kubectl -n kube-system delete pod <cilium pod on NODE>`; " +
  '`kubectl -n kube-system rollout restart ds/cilium` restarts all). Check its view first: `kubectl -n kube-system exec <cilium pod on NODE> -- cilium-dbg status --verbose` ' +
  '(`cilium status` in older images) and `kubectl get ciliumnodes -o wide`.'

export const RT_CILIUM_ROUTE: CheckSpec = {
  id: 'RT-013',
  area: 'routes',
  severity: 'error',
  title: "A Cilium route to another node's pod CIDR is missing or wrong",
  looksAt:
    CILIUM_LOOKS_AT +
    ' Tunnel mode (vxlan, geneve): per other node\'s pod CIDR `<CIDR> via <cilium_host IP> dev cilium_host src <cilium_host IP> mtu <route MTU>`. ' +
    'Native routing with auto-direct-node-routes=true: `<CIDR> via <node IP> dev <device of the node\'s subnet>` for each node on a directly ' +
    'connected subnet (nodes behind a gateway get none). Native routing without it: not applicable (the routes are the network\'s: cloud routes, BGP).',
  why:
    "In tunnel mode Cilium's BPF program on each pod's veth encapsulates pod-to-pod traffic itself, but traffic the host stack routes (host-network " +
    "pods, node processes such as an API server calling webhooks) needs the route into cilium_host to be encapsulated; without it that traffic " +
    "follows the default route and the other node's pods time out from the host. With native routing the route is the way to the other node for " +
    "pods too: without it cross-node pod traffic and Services backed by those pods time out from here. A route via another device or next hop " +
    '(left from before the routing mode changed, or after cilium_host was re-addressed) has the same effect.',
  remedy:
    "Compare `ip route show | grep -E 'cilium_host|via'` on the node with `kubectl get ciliumnodes -o custom-columns=NAME:.metadata.name,CIDRS:.spec.ipam.podCIDRs` " +
    "and the routing keys: `kubectl -n kube-system get configmap cilium-config -o yaml | grep -E 'routing-mode|tunnel|auto-direct-node-routes|ipam'`. " +
    "A route left from an earlier mode can be removed on the node with `ip route del <CIDR>` once the agent runs in the current mode. " +
    CILIUM_RESYNC,
  requires: ['ip-route', 'cluster:nodes'],
}

export const RT_CILIUM_LOCAL_ROUTE: CheckSpec = {
  id: 'RT-014',
  area: 'routes',
  severity: 'warning',
  title: "This node's own pod CIDR has no route on cilium_host (Cilium)",
  looksAt:
    CILIUM_LOOKS_AT +
    ' This node\'s own pod CIDRs: `<CIDR> via <cilium_host IP> dev cilium_host src <cilium_host IP>` (no MTU), in every routing mode, unless ' +
    'enable-local-node-route is false or enable-endpoint-routes is true (per-endpoint routes instead). A route for them through another device is an error.',
  why:
    "The local node route sends the host's own traffic for local pods into cilium_host, where Cilium's datapath delivers it. Without it that " +
    'traffic (kubelet probes, host-network pods, NodePort traffic the host forwards) follows the default route and leaves the node; a route ' +
    'through another device sends it away the same way (another node claims the CIDR?).',
  remedy:
    "Check the agent on this node and what it allocated: `kubectl get ciliumnode NODE -o yaml` (spec.ipam.podCIDRs) and `ip addr show cilium_host`. " +
    CILIUM_RESYNC,
  requires: ['ip-route', 'cluster:nodes'],
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
  RT_FLANNEL_ROUTE,
  RT_FLANNEL_NEIGH,
  RT_FLANNEL_FDB,
  RT_VPC_POD_ROUTE,
  RT_CILIUM_ROUTE,
  RT_CILIUM_LOCAL_ROUTE,
]
