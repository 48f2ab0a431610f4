// Node forwarding prerequisites (issue #19 item 1): ip_forward, br_netfilter on bridge CNIs, filter FORWARD policy,
// route_localnet where kube-proxy serves localhost NodePorts.
import type {Check} from '../types.js'
import {checkBridgeNetfilter, checkForwardDrop, checkIpForward, checkRouteLocalnet} from './prereqs.js'
import {checkHairpin, NODE_HAIRPIN} from './hairpin.js'
import {checkModules, NODE_MODULES} from './modules.js'
import {checkNodeLocalDns, NODE_LOCAL_DNS} from './node-local-dns.js'
import {NODE_BRIDGE_NETFILTER, NODE_FORWARD_DROP, NODE_IP_FORWARD, NODE_ROUTE_LOCALNET} from './specs.js'
import {checkRpFilterAsymmetric, checkRpFilterCalicoLoose} from './rp-filter.js'
import {checkOverlayMtu, checkPodMtu} from './mtu.js'
import {checkNodeLocalDnsClusterDns, NODE_LOCAL_DNS_CLUSTER_DNS} from './cluster-dns.js'
import {NODE_OVERLAY_MTU, NODE_POD_MTU, NODE_RP_FILTER_ASYMMETRIC, NODE_RP_FILTER_CALICO_LOOSE} from './specs.js'
import {checkConfiguredMtu, checkMtuDrift, checkRoutedPodMtu} from './mtu-config.js'
import {NODE_CONFIGURED_MTU, NODE_MTU_DRIFT, NODE_ROUTED_POD_MTU} from './specs.js'
import {checkPathMtu, NODE_PATH_MTU} from './probe.js'

export const NODE_CHECKS: readonly Check[] = [
  {spec: NODE_IP_FORWARD, run: checkIpForward},
  {spec: NODE_BRIDGE_NETFILTER, run: checkBridgeNetfilter},
  {spec: NODE_FORWARD_DROP, run: checkForwardDrop},
  {spec: NODE_ROUTE_LOCALNET, when: {servicesOwner: ['kube-proxy']}, run: checkRouteLocalnet},
  {spec: NODE_HAIRPIN, run: checkHairpin},
  {spec: NODE_LOCAL_DNS, run: checkNodeLocalDns},
  {spec: NODE_MODULES, when: {servicesOwner: ['kube-proxy']}, run: checkModules},
  // issue #19 items 2 (reverse-path filtering) and 3 (MTU)
  {spec: NODE_RP_FILTER_ASYMMETRIC, run: checkRpFilterAsymmetric},
  {spec: NODE_RP_FILTER_CALICO_LOOSE, run: checkRpFilterCalicoLoose},
  {spec: NODE_OVERLAY_MTU, run: checkOverlayMtu},
  {spec: NODE_POD_MTU, run: checkPodMtu},
  // issue #19 item 6: clusterDNS against node-local-dns, across nodes
  {spec: NODE_LOCAL_DNS_CLUSTER_DNS, run: checkNodeLocalDnsClusterDns},
  // issue #19 item 3: the CNI's configured MTU
  {spec: NODE_CONFIGURED_MTU, run: checkConfiguredMtu},
  {spec: NODE_MTU_DRIFT, run: checkMtuDrift},
  {spec: NODE_ROUTED_POD_MTU, run: checkRoutedPodMtu},
  // issue #19 item 3: the measured path MTU between nodes (check --probe)
  {spec: NODE_PATH_MTU, run: checkPathMtu},
]
