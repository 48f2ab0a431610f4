// Node forwarding prerequisites (issue #19 item 1): ip_forward, br_netfilter on bridge CNIs, filter FORWARD policy,
// route_localnet where kube-proxy serves localhost NodePorts.
import type {Check} from '../types.js'
import {checkBridgeNetfilter, checkForwardDrop, checkIpForward, checkRouteLocalnet} from './prereqs.js'
import {checkHairpin, NODE_HAIRPIN} from './hairpin.js'
import {checkModules, NODE_MODULES} from './modules.js'
import {checkNodeLocalDns, NODE_LOCAL_DNS} from './node-local-dns.js'
import {NODE_BRIDGE_NETFILTER, NODE_FORWARD_DROP, NODE_IP_FORWARD, NODE_ROUTE_LOCALNET} from './specs.js'

export const NODE_CHECKS: readonly Check[] = [
  {spec: NODE_IP_FORWARD, run: checkIpForward},
  {spec: NODE_BRIDGE_NETFILTER, run: checkBridgeNetfilter},
  {spec: NODE_FORWARD_DROP, run: checkForwardDrop},
  {spec: NODE_ROUTE_LOCALNET, when: {servicesOwner: ['kube-proxy']}, run: checkRouteLocalnet},
  {spec: NODE_HAIRPIN, run: checkHairpin},
  {spec: NODE_LOCAL_DNS, run: checkNodeLocalDns},
  {spec: NODE_MODULES, when: {servicesOwner: ['kube-proxy']}, run: checkModules},
]
