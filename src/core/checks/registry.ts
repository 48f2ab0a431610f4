// Every check node-doctor knows, in catalog order. Each area contributes its own list.
import {CONNTRACK_CHECKS} from './conntrack/index.js'
import {DNS_CHECKS} from './dns/index.js'
import {IPTABLES_CHECKS} from './iptables/index.js'
import {IPVS_CHECKS} from './ipvs/index.js'
import {KUBELET_CHECKS} from './kubelet/index.js'
import {NFTABLES_CHECKS} from './nftables/index.js'
import {NODE_CHECKS} from './node/index.js'
import {OBJECT_CHECKS} from './objects/index.js'
import {PROXY_MODE_CHECKS} from './proxy-mode/index.js'
import {ROUTES_CHECKS} from './routes/index.js'
import {SERVICES_OWNER_CHECKS} from './services-owner/index.js'
import type {Check, CheckSpec} from './types.js'

export type {ProfileSelection} from './types.js'

const ALL: Check[] = [...KUBELET_CHECKS, ...PROXY_MODE_CHECKS, ...SERVICES_OWNER_CHECKS, ...IPTABLES_CHECKS, ...IPVS_CHECKS, ...NFTABLES_CHECKS, ...ROUTES_CHECKS, ...DNS_CHECKS, ...OBJECT_CHECKS, ...CONNTRACK_CHECKS, ...NODE_CHECKS]

export const CHECKS: readonly Check[] = ALL

/** Catalog entries, for `checks` and `explain`. */
export const CATALOG: readonly CheckSpec[] = ALL.map((c) => c.spec)

export function findCheck(id: string): Check | undefined {
  const wanted = id.toUpperCase()
  return CHECKS.find((c) => c.spec.id === wanted)
}
