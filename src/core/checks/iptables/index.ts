import type {Check} from '../types.js'
import {outcomeFor} from './live.js'
import {IPTABLES_DIFF_SPECS} from './specs.js'

/** The IPT checks: one shared diff per node, each check reporting its own kind of difference. */
export const IPTABLES_CHECKS: readonly Check[] = IPTABLES_DIFF_SPECS.map((spec) => ({spec, when: {servicesOwner: ['kube-proxy']}, run: (ctx) => outcomeFor(spec.id, ctx)}))
