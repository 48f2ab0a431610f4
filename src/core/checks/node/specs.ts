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
