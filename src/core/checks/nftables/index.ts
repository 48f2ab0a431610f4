import type {Check} from '../types.js'
import {nftOutcomeFor} from './live.js'
import {NFTABLES_DIFF_SPECS} from './specs.js'

/** The NFT checks: one shared diff per node, each check reporting its own kind of difference. */
export const NFTABLES_CHECKS: readonly Check[] = NFTABLES_DIFF_SPECS.map((spec) => ({spec, when: {servicesOwner: ['kube-proxy']}, run: (ctx) => nftOutcomeFor(spec.id, ctx)}))
