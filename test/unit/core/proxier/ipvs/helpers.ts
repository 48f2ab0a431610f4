// Test helpers for the IPVS proxier: the node artifacts a healthy IPVS node would show for an expected state
// (what `ipvsadm -Sn`, `ip -j addr`, `ipset save` and `iptables-save` print after kube-proxy's sync), so tests can
// break one thing at a time and see the diff name exactly that.
import {parse as parseYaml} from 'yaml'
import {expectedIptablesSave} from '../../../../../src/core/diff/ipvs.js'
import {parseKubeProxyVersion} from '../../../../../src/core/proxier/config.js'
import {ipvsOptionsFromKubeProxyConfig} from '../../../../../src/core/proxier/ipvs/config.js'
import {formatIpsetSave, formatIpvsadmSave, generateIpvsState, type IpvsState} from '../../../../../src/core/proxier/ipvs/generate.js'
import {loadObjects} from '../../../../../src/core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText} from '../../../../../src/core/proxier/render-input.js'
import {readFixture} from '../../../../support/golden.js'

export interface NodeArtifacts {
  ipvsadm: string
  ipAddr: string
  ipset: string
  iptablesSave: string
}

interface Iface {
  name: string
  addrs: Array<[string, number]>
}

/** node-a's interfaces outside kube-ipvs0 (see test/fixtures/proxier/ipvs/README.md). */
export const NODE_A_INTERFACES: Iface[] = [
  {name: 'lo', addrs: [['127.0.0.1', 8], ['::1', 128]]},
  {name: 'eth0', addrs: [['192.168.0.2', 24], ['2001:db8::2', 64], ['fe80::1', 64]]},
  {name: 'docker0', addrs: [['172.17.0.1', 16]]},
]

/** `ip -j addr` JSON for the interfaces plus kube-ipvs0 holding `bound` (host routes, scope global). */
export function ipAddrJson(bound: readonly string[], interfaces: readonly Iface[] = NODE_A_INTERFACES): string {
  const fam = (a: string) => (a.includes(':') ? 'inet6' : 'inet')
  const scope = (a: string) => (a === '127.0.0.1' || a === '::1' ? 'host' : a.startsWith('fe80:') ? 'link' : 'global')
  const links = [...interfaces, {name: 'kube-ipvs0', addrs: bound.map((a): [string, number] => [a, a.includes(':') ? 128 : 32])}].map((iface, i) => ({
    ifindex: i + 1,
    ifname: iface.name,
    flags: iface.name === 'kube-ipvs0' ? ['BROADCAST', 'NOARP'] : ['UP', 'LOWER_UP'],
    mtu: 1500,
    operstate: iface.name === 'kube-ipvs0' ? 'DOWN' : 'UP',
    link_type: iface.name === 'lo' ? 'loopback' : 'ether',
    addr_info: iface.addrs.map(([local, prefixlen]) => ({family: fam(local), local, prefixlen, scope: scope(local), valid_life_time: 4294967295, preferred_life_time: 4294967295})),
  }))
  return `${JSON.stringify(links)}\n`
}

/** The artifacts of a node whose kube-proxy synced `state` (both families' kube-ipvs0 addresses when given). */
export function healthyNodeArtifacts(state: IpvsState, otherFamilyBound: readonly string[] = []): NodeArtifacts {
  return {
    ipvsadm: formatIpvsadmSave(state),
    ipAddr: ipAddrJson([...state.boundAddresses, ...otherFamilyBound]),
    ipset: formatIpsetSave(state),
    iptablesSave: expectedIptablesSave(state),
  }
}

/** node-a's interface addresses as the proxier's facts take them. */
export const NODE_A_ADDRESSES = ['127.0.0.1/8', '::1/128', '192.168.0.2/24', '2001:db8::2/64', 'fe80::1/64', '172.17.0.1/16']

/** Renders test/fixtures/proxier/ipvs/<dir> for node-a, as `proxy render --mode ipvs` does. */
export function renderIpvsCase(dir: string, opts: {version?: string; family?: 'ipv4' | 'ipv6'; reverse?: boolean} = {}): IpvsState {
  const objects = loadObjects([
    {name: 'nodes.yaml', text: readFixture('proxier/iptables/nodes.yaml')},
    {name: `${dir}/objects.yaml`, text: readFixture(`proxier/ipvs/${dir}/objects.yaml`)},
  ])
  if (opts.reverse) {
    objects.services.reverse()
    objects.endpointSlices.reverse()
  }
  const configText = kubeProxyConfigText(objects)
  const config = configText ? (parseYaml(configText) as Record<string, unknown>) : undefined
  const r = buildRenderInput(objects, {
    nodeName: 'node-a',
    version: parseKubeProxyVersion(opts.version ?? 'v1.35')!,
    ...(config ? {kubeProxyConfig: config} : {}),
    facts: {nodeInterfaceAddresses: NODE_A_ADDRESSES, randomFully: true, ...(opts.family ? {family: opts.family} : {})},
  })
  return generateIpvsState({...r.input, ipvs: ipvsOptionsFromKubeProxyConfig(config)})
}
