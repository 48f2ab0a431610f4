// Benchmark: IPVS mode render + diff for 10,000 Services × 10 endpoints against a node of the same size (the issue
// asks for the iptables benchmark's figures for IPVS). The node's `ipvsadm -Sn`, `ipset save`, `iptables-save` and
// `ip -j addr` are the expected state with one real server removed, prepared outside the timed part.
// Run: node --import tsx bench/proxier-ipvs.ts
import {performance} from 'node:perf_hooks'
import {diffIpvs, expectedIptablesSave} from '../src/core/diff/ipvs.js'
import {parseIptablesSave} from '../src/core/parse/iptables-save.js'
import {parseIpset} from '../src/core/parse/ipset.js'
import {parseIpvsadm} from '../src/core/parse/ipvsadm.js'
import {parseLinks} from '../src/core/parse/links.js'
import {ipvsOptionsFromKubeProxyConfig} from '../src/core/proxier/ipvs/config.js'
import {formatIpsetSave, formatIpvsadmSave, generateIpvsState} from '../src/core/proxier/ipvs/generate.js'
import {benchProxierOptions, loadBenchObjects, time} from './proxier-objects.js'

const objects = loadBenchObjects()
const options = benchProxierOptions()
const ipvs = ipvsOptionsFromKubeProxyConfig(undefined)
const input = {services: objects.services, endpointSlices: objects.endpointSlices, options, ipvs}

const node = (() => {
  const s = generateIpvsState(input)
  const save = formatIpvsadmSave(s)
  const i = save.indexOf('\n-a ')
  const links = [
    {ifindex: 1, ifname: 'lo', addr_info: [{family: 'inet', local: '127.0.0.1', prefixlen: 8, scope: 'host'}]},
    {ifindex: 2, ifname: 'eth0', addr_info: options.nodeInterfaceAddresses.filter((a) => !a.startsWith('127.')).map((a) => ({family: a.includes(':') ? 'inet6' : 'inet', local: a.split('/')[0], prefixlen: Number(a.split('/')[1] ?? 32), scope: 'global'}))},
    {ifindex: 3, ifname: 'kube-ipvs0', addr_info: s.boundAddresses.map((a) => ({family: 'inet', local: a, prefixlen: 32, scope: 'global'}))},
  ]
  return {
    ipvsadm: [save.slice(0, i + 1), save.slice(save.indexOf('\n', i + 1) + 1)].join(''),
    ipset: formatIpsetSave(s),
    iptables: expectedIptablesSave(s),
    ipAddr: JSON.stringify(links),
  }
})()
console.log(`node_input: ipvsadm ${(node.ipvsadm.length / 1e6).toFixed(1)} MB, ipset ${(node.ipset.length / 1e6).toFixed(1)} MB, ip addr ${(node.ipAddr.length / 1e6).toFixed(1)} MB`)

const t0 = performance.now()
const state = time('render', () => generateIpvsState(input))
console.log(`virtual_servers: ${state.virtualServers.length}, real_servers: ${state.virtualServers.reduce((n, v) => n + v.realServers.length, 0)}, ipset_entries: ${state.ipsets.reduce((n, x) => n + x.entries.length, 0)}`)
const actual = {
  ipvs: time('parse_ipvsadm', () => parseIpvsadm(node.ipvsadm)),
  ipsets: time('parse_ipset', () => parseIpset(node.ipset)),
  iptables: time('parse_iptables_save', () => parseIptablesSave(node.iptables)),
  links: time('parse_ip_addr', () => parseLinks(node.ipAddr)),
}
const diffs = time('diff', () => diffIpvs(state, actual))
console.log(`differences: ${diffs.length} (${diffs.map((d) => d.kind).join(', ')})`)
console.log(`render_plus_diff: ${(performance.now() - t0).toFixed(1)} ms (iptables-mode target <= 3000 ms)`)
console.log(`peak_rss: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (target <= 1024 MB)`)
