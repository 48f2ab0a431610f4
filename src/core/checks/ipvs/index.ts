import type {Check} from '../types.js'
import {ipvsOutcomeFor} from './live.js'
import {IPVS_DIFF_SPECS} from './specs.js'

/** The IPVS checks: one shared diff per node (IPVS-mode nodes only), each check reporting its own kind of difference. */
export const IPVS_CHECKS: readonly Check[] = IPVS_DIFF_SPECS.map((spec) => ({spec, when: {proxyMode: ['ipvs'], servicesOwner: ['kube-proxy']}, run: (ctx) => ipvsOutcomeFor(spec.id, ctx)}))
