// Node forwarding prerequisites (issue #19 item 1): ip_forward, br_netfilter on bridge CNIs, filter FORWARD policy.
import type {Check} from '../types.js'
import {checkBridgeNetfilter, checkForwardDrop, checkIpForward} from './prereqs.js'
import {NODE_BRIDGE_NETFILTER, NODE_FORWARD_DROP, NODE_IP_FORWARD} from './specs.js'

export const NODE_CHECKS: readonly Check[] = [
  {spec: NODE_IP_FORWARD, run: checkIpForward},
  {spec: NODE_BRIDGE_NETFILTER, run: checkBridgeNetfilter},
  {spec: NODE_FORWARD_DROP, run: checkForwardDrop},
]
