// The proxy service behind `proxy render` and `proxy diff`: one entry per verb, the same for the three kube-proxy
// modes (iptables, ipvs, nftables). Each mode reads its inputs from files (--objects ...) or live for a NODE,
// renders what kube-proxy would program, and for diff compares it with the node's state as a Report.
import type {Environment} from '../../ports/environment.js'
import type {LiveFlags} from '../live/targets.js'
import type {ProxierFlagValues, ProxyIO, ProxyMeta} from './input.js'
import {diffIptables, type IptablesFlagValues, renderIptables} from './iptables.js'
import {diffIpvs, type IpvsDiffFlagValues, renderIpvs} from './ipvs.js'
import {checkProxierForm} from './live.js'
import {diffNftables, renderNftables} from './nftables.js'
import type {ProxyDiff} from './report.js'

export type ProxyMode = 'iptables' | 'ipvs' | 'nftables'

export type ProxyFlagValues = ProxierFlagValues & IptablesFlagValues & IpvsDiffFlagValues & Partial<LiveFlags> & {nft?: string}

/** `proxy render --mode MODE [NODE]`: the text to print. */
export async function renderProxy(mode: ProxyMode, node: string | undefined, flags: ProxyFlagValues, env: Environment, io: ProxyIO): Promise<string> {
  checkProxierForm(node, flags, '', undefined)
  switch (mode) {
    case 'ipvs':
      return renderIpvs(node, flags, env, io)
    case 'nftables':
      return renderNftables(node, flags, env, io)
    case 'iptables':
      return renderIptables(node, flags, env, io)
  }
}

/** `proxy diff --mode MODE (dump files | NODE)`: the Report, and the rule diff per Service port. */
export async function diffProxy(mode: ProxyMode, node: string | undefined, flags: ProxyFlagValues, env: Environment, io: ProxyIO, meta: ProxyMeta): Promise<ProxyDiff> {
  switch (mode) {
    case 'ipvs':
      return diffIpvs(node, flags, env, io, meta)
    case 'nftables':
      return diffNftables(node, flags, env, io, meta)
    case 'iptables':
      return diffIptables(node, flags, env, io, meta)
  }
}
