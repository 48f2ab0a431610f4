// Catalog entries for the node forwarding prerequisites (issue #19 item 1). They sit in area `routes`: the node's
// own datapath (what it forwards), shown in the fleet table's ROUTES column and collected by `--only routes`.
import type {CheckSpec} from '../types.js'

export const NODE_IP_FORWARD: CheckSpec = {
  id: 'NODE-001',
  area: 'routes',
  severity: 'error',
  title: 'IP forwarding is off (net.ipv4.ip_forward, or net.ipv6.conf.all.forwarding on a dual-stack node)',
  looksAt:
    "The node's `sysctls` artifact (`sysctl net.ipv4.ip_forward net.ipv6.conf.all.forwarding ...`, read in the host's network namespace). " +
    "IPv6 forwarding is judged only where the Node has an IPv6 address or podCIDR (dual-stack or IPv6-only); IPv4 forwarding only where it has IPv4 ones " +
    '(or says nothing about its families). A key the output lacks cannot be judged: the check skips and says so.',
  why:
    'With forwarding off the kernel drops every packet it would route: pods cannot reach Services (the DNATed packet must be forwarded to the endpoint), ' +
    'other nodes, or anything outside the node, and NodePort traffic to pods elsewhere is dropped. Kubernetes components and CNI plugins set it at start, ' +
    'so 0 on a running node means something reset it afterwards (a `sysctl --system` with a file saying 0, a network manager or a hardening profile; ' +
    'kubernetes/kubernetes#33798).',
  remedy:
    'Set it now and make it persistent: `sysctl -w net.ipv4.ip_forward=1` (and `sysctl -w net.ipv6.conf.all.forwarding=1` on a dual-stack node), then write ' +
    'the same keys to `/etc/sysctl.d/99-kubernetes.conf` and find what reset them (`grep -r forward /etc/sysctl.conf /etc/sysctl.d /usr/lib/sysctl.d /run/sysctl.d`).',
  requires: ['sysctls', 'cluster:nodes'],
}

export const NODE_BRIDGE_NETFILTER: CheckSpec = {
  id: 'NODE-002',
  area: 'routes',
  severity: 'error',
  title: 'A bridge CNI without br_netfilter: bridged pod traffic bypasses iptables (br_netfilter not loaded or bridge-nf-call-iptables = 0)',
  looksAt:
    "The node's links (`ip -j -d link show`): a bridge (such as `cni0`, `cbr0` or `docker0`) with veth ports attached is a bridge CNI; routed CNIs " +
    '(Calico, Cilium) have none and the check does not apply there. Then `net.bridge.bridge-nf-call-iptables` (and `-ip6tables` on a node with IPv6 addresses ' +
    'or podCIDRs) from the `sysctls` artifact; where the key is absent, the loaded modules (`/proc/modules`): the keys exist only while br_netfilter is loaded.',
  why:
    'A pod talking to a Service whose endpoint sits on the same bridge sends the packet through the bridge, not the routing path: without br_netfilter ' +
    "(or with bridge-nf-call-iptables = 0) iptables never sees it, kube-proxy's DNAT and masquerade rules do not apply, and the connection hangs or the " +
    'reply comes from the wrong address (kubernetes/kubernetes#38802, #24019).',
  remedy:
    'Load the module and set the keys, now and at boot: `modprobe br_netfilter`, `echo br_netfilter > /etc/modules-load.d/k8s.conf`, ' +
    '`sysctl -w net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1`, and write both keys to `/etc/sysctl.d/99-kubernetes.conf`.',
  requires: ['ip-link', 'sysctls'],
}

export const NODE_FORWARD_DROP: CheckSpec = {
  id: 'NODE-003',
  area: 'routes',
  severity: 'error',
  title: 'The filter FORWARD chain drops by policy and nothing in it accepts pod traffic',
  looksAt:
    "The IPv4 `filter` table of `iptables-save`: the FORWARD chain's policy and every rule reachable from it (following jumps and gotos into user chains). " +
    "A jump to a chain known to accept pod traffic (kube-proxy's KUBE-FORWARD, Calico's cali-FORWARD, Cilium's CILIUM_FORWARD, flannel's FLANNEL-FWD, " +
    "kube-router's KUBE-ROUTER-FORWARD) or any reachable ACCEPT rule counts as an accept path: the check fires only when there is none at all. " +
    'Rules kept only in the other iptables backend (`iptables-legacy-save` beside an nf_tables default) are not read.',
  why:
    'With policy DROP (Docker sets it when it starts; some hardening guides do too) and no rule accepting pod traffic, every packet the node forwards is ' +
    'dropped: pod-to-pod across nodes, pod-to-Service with a remote endpoint, NodePort traffic to pods (kubernetes/kubernetes#45022).',
  remedy:
    'Either set the policy back (`iptables -P FORWARD ACCEPT`) or accept pod traffic explicitly, e.g. `iptables -A FORWARD -s POD_CIDR -j ACCEPT` and ' +
    '`iptables -A FORWARD -d POD_CIDR -j ACCEPT`; make it persistent (Docker: `"iptables": false` or a DOCKER-USER rule). Then check that kube-proxy and the CNI ' +
    "are running: their own FORWARD jumps (KUBE-FORWARD, cali-FORWARD, ...) are missing too, which suggests they have not synced.",
  requires: ['iptables-save'],
}

export const NODE_ROUTE_LOCALNET: CheckSpec = {
  id: 'NODE-004',
  area: 'routes',
  severity: 'warning',
  title: 'route_localnet is 0 where kube-proxy serves NodePorts on 127.0.0.1 (iptables mode): something reset it',
  looksAt:
    "`net.ipv4.conf.all.route_localnet` from the `sysctls` artifact, on nodes where kube-proxy runs in iptables mode with localhost NodePorts in effect: " +
    '`iptables.localhostNodePorts` true (the default) and IPv4 `nodePortAddresses` that include 127.0.0.1 (the default, all addresses), as the iptables ' +
    "checks resolve kube-proxy's configuration, and the cluster has at least one Service with a nodePort. Elsewhere the value does not matter and the check does not apply.",
  why:
    'kube-proxy writes route_localnet = 1 itself when it starts in this configuration, so that `curl 127.0.0.1:NODEPORT` on the node is routed to the ' +
    'endpoint. 0 on a running node means something reset it afterwards (a sysctl file applied later, a hardening tool): NodePorts on localhost time out until ' +
    'kube-proxy restarts. Only local clients are affected (node agents, health checks using 127.0.0.1).',
  remedy:
    'Find what resets it (`grep -r route_localnet /etc/sysctl.conf /etc/sysctl.d /usr/lib/sysctl.d /run/sysctl.d`) and remove that; then restart kube-proxy on the node ' +
    'or `sysctl -w net.ipv4.conf.all.route_localnet=1`. If localhost NodePorts are not wanted, set `iptables.localhostNodePorts: false` (or `nodePortAddresses` without loopback) ' +
    "in kube-proxy's configuration instead.",
  requires: ['sysctls', 'iptables-save', 'cluster:services'],
}

export const NODE_SPECS: readonly CheckSpec[] = [NODE_IP_FORWARD, NODE_BRIDGE_NETFILTER, NODE_FORWARD_DROP, NODE_ROUTE_LOCALNET]

// ---- issue #19 items 2 and 3: reverse-path filtering and MTU (NODE-005..019 are this family's) ----

export const NODE_RP_FILTER_ASYMMETRIC: CheckSpec = {
  id: 'NODE-005',
  area: 'routes',
  severity: 'error',
  title: 'Strict reverse-path filtering drops pod or Service traffic on a node whose routes back are asymmetric',
  looksAt:
    "Every interface's `rp_filter` (the `sysctls` artifact reads `/proc/sys/net/ipv4/conf/*/rp_filter`), with the mode the kernel applies: the larger of " +
    '`net.ipv4.conf.all.rp_filter` and the interface\'s own value. Where the interface carrying the Node\'s IPv4 InternalIP (from `ip -j addr`) is in strict mode (1), ' +
    "the main routing table (`ip -d route show table all`) is asked for the route back to each source of cluster traffic: the other Nodes' InternalIPs and their pod CIDRs " +
    '(Calico blocks, else Node podCIDRs). A source routed back through an overlay device (tunl0, vxlan.calico, flannel.1, ...) arrives through it too, and one routed ' +
    "into the CNI's own links (cilium_host, cni0, cali*, ...) is the CNI's to deliver: both are fine; one routed back through another interface than the one it arrives " +
    'on is dropped. A source covered by a policy-routing table cannot be judged (`ip rule` is not collected): the check then skips and names it. Clients outside the ' +
    'cluster are not judged (their addresses are not known).',
  why:
    'In strict mode (RFC 3704) the kernel drops every packet whose source it would not route back out of the interface the packet came in on. On a multi-homed node ' +
    '(a second NIC for storage or management, a default route on another interface than the cluster network) traffic from other nodes and their pods arrives on the ' +
    "cluster interface while the reply route leaves through another one: pod-to-pod traffic across nodes, Services with remote endpoints and NodePorts forwarded from other " +
    'nodes silently time out. Strict mode on a node whose paths are symmetric (a single-homed node, a Calico IPIP node) breaks nothing and raises nothing.',
  remedy:
    'Either make the route back symmetric (add a route for the cluster network through the interface that carries the InternalIP, e.g. ' +
    '`ip route add 172.16.0.0/16 via GATEWAY dev eth1`, and make it persistent in the network configuration), or use loose mode on that interface: ' +
    '`sysctl -w net.ipv4.conf.all.rp_filter=2` and `sysctl -w net.ipv4.conf.IFACE.rp_filter=2` (the kernel applies the larger of the two), written to ' +
    '`/etc/sysctl.d/99-kubernetes.conf`. On an older Calico, check NODE-006 before setting `all` to 2.',
  requires: ['sysctls', 'ip-addr', 'ip-route', 'cluster:nodes'],
}

export const NODE_RP_FILTER_CALICO_LOOSE: CheckSpec = {
  id: 'NODE-006',
  area: 'routes',
  severity: 'error',
  title: 'Loose reverse-path filtering (all.rp_filter = 2) on a Calico node whose calico-node is not running',
  looksAt:
    "`net.ipv4.conf.all.rp_filter` from the `sysctls` artifact on clusters with Calico (IPPools or calico-node pods), and the calico-node pod on the node: its " +
    'readiness and restarts, and its FELIX_IGNORELOOSERPF setting. A calico-node that runs with `all` at 2 is a Felix without the loose-RPF startup check (current ' +
    'releases): nothing fires then.',
  why:
    "Felix versions with the startup check read `/proc/sys/net/ipv4/conf/all/rp_filter` and exit with \"Kernel's RPF check is set to 'loose'\" when it is 2, because " +
    "loose mode at `all` overrides the strict per-interface value those versions rely on against spoofing (projectcalico/felix#1322). systemd 240 and later ship " +
    '`net.ipv4.conf.all.rp_filter = 2` (systemd/systemd#10971), so a node upgrade or a new image can turn it on: calico-node then crash-loops and the node\'s pods lose networking.',
  remedy:
    'Set strict or no filtering at `all` and make it persistent: `sysctl -w net.ipv4.conf.all.rp_filter=1` and a file in `/etc/sysctl.d/` that sorts after systemd\'s ' +
    '`50-default.conf` (e.g. `99-calico.conf`). If loose mode is needed for asymmetric routing and the workloads are trusted, tell Felix to accept it instead: ' +
    '`kubectl -n kube-system set env daemonset/calico-node FELIX_IGNORELOOSERPF=true`. Current Calico releases no longer have the check: upgrading removes it too.',
  requires: ['sysctls', 'cluster:pods'],
}

export const NODE_OVERLAY_MTU: CheckSpec = {
  id: 'NODE-007',
  area: 'routes',
  severity: 'error',
  title: "An overlay device's MTU is larger than its underlay's MTU minus the encapsulation overhead: large responses hang",
  looksAt:
    'The links (`ip -j -d link show`): each overlay device that is up (tunl0 IPIP 20 bytes, vxlan.calico and flannel.1 VXLAN 50, vxlan-v6.calico 70, wireguard.cali and ' +
    'flannel-wg WireGuard 60, their IPv6 devices 80; other ipip/vxlan/wireguard/geneve links by kind) against its underlay: a VXLAN device\'s own `dev`, else the ' +
    "interface that carries the Node's InternalIP of the outer family (`ip -j addr`). Cilium's tunnel devices are not judged: Cilium applies the overhead on the pods' " +
    'routes instead of the device.',
  why:
    "Every packet a pod sends through the tunnel grows by the encapsulation header. With the tunnel's MTU above the underlay's MTU minus that header, full-size pod " +
    'packets become outer packets the underlay cannot carry: they are fragmented or dropped (silently where ICMP is filtered or DF is set). Pings and small requests ' +
    'work while TLS handshakes, image pulls and large HTTP responses stall (projectcalico/calico#7651, #8953, #1709).',
  remedy:
    "Set the CNI's MTU to the underlay MTU minus the overhead (or let it auto-detect): Calico FelixConfiguration `ipipMTU`/`vxlanMTU`/`wireguardMTU` (or the operator's " +
    '`Installation.spec.calicoNetwork.mtu`, or `veth_mtu` in the `calico-config` ConfigMap); flannel derives its MTU from the interface `--iface` selects. Then restart the CNI pods and recreate ' +
    'the pods (their veths keep the old MTU). `ip link set dev tunl0 mtu 1480` fixes the device until the CNI sets it again.',
  requires: ['ip-link', 'ip-addr', 'cluster:nodes'],
}

export const NODE_POD_MTU: CheckSpec = {
  id: 'NODE-008',
  area: 'routes',
  severity: 'error',
  title: "Pods on a bridge CNI have a larger MTU than the overlay their traffic to other nodes goes through",
  looksAt:
    'The links (`ip -j -d link show`): the veth ports of each bridge with pods on it (cni0, cbr0: flannel and the bridge plugin) against the smallest MTU of the overlay ' +
    "devices the main routing table sends traffic through (flannel.1, flannel-wg, ...). The host end of a pod's veth has the pod end's MTU: the bridge plugin creates " +
    "both ends with one MTU. Routed CNIs' veths (cali*, lxc*) are not judged here; neither are nodes without an overlay.",
  why:
    'A pod sends packets up to its own MTU. Above the overlay\'s MTU they do not fit the tunnel whole: the node must fragment them or answer with ICMP "fragmentation needed", ' +
    'which network policies and DF-set traffic turn into silent drops. Pods created before an MTU change (the underlay or FLANNEL_MTU changed, the CNI was reconfigured) ' +
    'keep the old MTU: small requests work, large transfers to pods on other nodes stall.',
  remedy:
    "Recreate the affected pods so the CNI gives them the current MTU (`kubectl delete pod -n NAMESPACE POD`, or `kubectl rollout restart` of their workloads), after making " +
    "sure the CNI's configured MTU fits the overlay (flannel writes FLANNEL_MTU to /run/flannel/subnet.env from the interface `--iface` selects, minus the overhead).",
  requires: ['ip-link', 'ip-route'],
}

export const NODE_SPECS_RP_MTU: readonly CheckSpec[] = [NODE_RP_FILTER_ASYMMETRIC, NODE_RP_FILTER_CALICO_LOOSE, NODE_OVERLAY_MTU, NODE_POD_MTU]

// ---- issue #19 item 3 continued: the CNI's configured MTU (checks in mtu-config.ts) ----

export const NODE_CONFIGURED_MTU: CheckSpec = {
  id: 'NODE-010',
  area: 'routes',
  severity: 'error',
  title: "The CNI's configured MTU is larger than the underlay's MTU minus the encapsulation overhead",
  looksAt:
    "The MTU each CNI is configured with, and where from: Calico's IPIP/VXLAN/WireGuard MTUs for each tunnel device that is up (tunl0, vxlan.calico, wireguard.cali, ...), " +
    "from the calico-node pod's environment on this node (FELIX_IPINIPMTU, FELIX_VXLANMTU, FELIX_WIREGUARDMTU, with a configMapKeyRef resolved from kube-system/calico-config " +
    '`veth_mtu`), else the FelixConfiguration `node.NODE`, else `default` (spec.ipipMTU, vxlanMTU, wireguardMTU), as Felix ranks them; flannel\'s FLANNEL_MTU from ' +
    "/run/flannel/subnet.env (the `flannel-subnet-env` artifact); Cilium's `mtu` in kube-system/cilium-config. Each value is compared with the underlay (a VXLAN device's " +
    "`dev`, else the interface carrying the Node's InternalIP) minus the tunnel's overhead (IPIP 20, VXLAN 50, WireGuard 60); Cilium's value with the underlay itself, since " +
    'Cilium subtracts its overhead on the pods\' routes. 0 or unset means auto-detected from the underlay and is not judged here (NODE-007 judges the devices).',
  why:
    'A configured MTU is used as it is: the CNI gives it to the tunnel device and the pods (at the next restart of its agent when it comes from an environment variable ' +
    "or a ConfigMap). Above the underlay's MTU minus the overhead, full-size pod packets become outer packets the underlay cannot carry: they are fragmented or " +
    'dropped, so small requests work while TLS handshakes and large responses hang (projectcalico/calico#7651, #8953, #1709). The finding names the setting to change.',
  remedy:
    'Lower the setting the finding names to the underlay MTU minus the overhead, or set it to 0 to let the CNI detect it: `kubectl -n kube-system edit configmap calico-config` ' +
    "(`veth_mtu`), `kubectl patch felixconfiguration default --type merge -p '{\"spec\":{\"ipipMTU\":1480}}'`, flannel's `--iface`/network config, or " +
    '`mtu` in kube-system/cilium-config. Then restart the CNI agents (`kubectl -n kube-system rollout restart daemonset/calico-node`) and recreate the pods: their veths keep the old MTU.',
  requires: ['ip-link', 'ip-addr', 'cluster:nodes', 'cluster:pods'],
}

export const NODE_MTU_DRIFT: CheckSpec = {
  id: 'NODE-011',
  area: 'routes',
  severity: 'warning',
  title: "Tunnel devices or pod veths do not have the MTU the CNI is configured with (the configuration changed, pods or agents not restarted)",
  looksAt:
    'The same configured MTUs as NODE-010 (only values set explicitly; auto is not compared) against the devices that should carry them: Calico\'s tunnel devices, and ' +
    "its pod veths (cali*) against the smallest tunnel MTU when every tunnel's MTU is set; flannel's flannel.1, cni0 and its pod veths against FLANNEL_MTU; Cilium's " +
    'pod devices (lxc*) against cilium-config `mtu`. Pod veths above the tunnel they send through are errors of NODE-008/NODE-012 and not repeated here.',
  why:
    "A CNI applies its MTU when its agent starts and when it creates a pod's veth: a changed ConfigMap or FelixConfiguration leaves the running agent and the existing " +
    'pods with the old value. Until they restart, pods on one node disagree about the MTU, and the change (often the fix for hanging transfers) has not taken effect.',
  remedy:
    'Restart the CNI agent on the node (`kubectl -n kube-system delete pod CNI_AGENT_POD`, or `kubectl -n kube-system rollout restart daemonset/calico-node`), then ' +
    'recreate the pods whose veths are listed (`kubectl delete pod -n NAMESPACE POD`, or `kubectl rollout restart` of their workloads). If the configuration is the wrong side, set it back.',
  requires: ['ip-link', 'cluster:pods'],
}

export const NODE_ROUTED_POD_MTU: CheckSpec = {
  id: 'NODE-012',
  area: 'routes',
  severity: 'error',
  title: "Pods of a routed CNI (Calico cali*, Cilium lxc*) have a larger MTU than their traffic's path allows",
  looksAt:
    "The links (`ip -j -d link show`): the host ends of Calico's pod veths (cali + 11 hex digits) against the smallest Calico tunnel the main routing table sends traffic " +
    "through (tunl0, vxlan.calico, wireguard.cali), or the underlay (the interface carrying the Node's InternalIP) where no tunnel is up; under canal, against the flannel " +
    'device (flannel.1) the routes to other nodes use; Cilium\'s pod devices (lxc*) ' +
    "against the underlay. A veth's host end has the pod end's MTU (one MTU for the pair).",
  why:
    'A pod sends packets up to its own MTU. Above the tunnel\'s MTU they do not fit it whole: the node must fragment them or answer "fragmentation needed", which policies and ' +
    "DF-set traffic turn into silent drops, so large transfers to pods on other nodes stall. Cilium gives pod devices its base MTU and the tunnel overhead to the pods' routes: " +
    'a pod device above the underlay means that base is larger than the underlay can carry.',
  remedy:
    "Make the CNI's MTU fit (see NODE-010, or auto-detection; under canal its veth_mtu, on RKE2 the rke2-canal chart value calico.vethuMTU set through a HelmChartConfig), then recreate the affected pods so they get it: `kubectl delete pod -n NAMESPACE POD` or `kubectl rollout restart` " +
    'of their workloads.',
  requires: ['ip-link', 'ip-addr', 'ip-route', 'cluster:nodes'],
}

export const NODE_SPECS_CNI_MTU: readonly CheckSpec[] = [NODE_CONFIGURED_MTU, NODE_MTU_DRIFT, NODE_ROUTED_POD_MTU]
