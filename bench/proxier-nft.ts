// Benchmark: nftables mode, render + diff for 10,000 Services × 10 endpoints against a node listing of the same size
// (the same objects as the iptables benchmarks). The "node listing" is the expected table with one rule removed,
// printed as `nft list` text and parsed back, so the figures include parsing what a node would hand us. Target
// (as for iptables): render + parse + diff within 3 s and 1 GiB.
// Run: node --import tsx bench/proxier-nft.ts
import {performance} from 'node:perf_hooks'
import {diffNftables} from '../src/core/diff/nftables.js'
import {findNftTable, parseNft} from '../src/core/parse/nft.js'
import {generateNftables, type NftablesOptions} from '../src/core/proxier/nftables/generate.js'
import {nftTableStats, serializeNftTable} from '../src/core/proxier/nftables/table.js'
import {benchProxierOptions, loadBenchObjects, time} from './proxier-objects.js'

const objects = loadBenchObjects()
const base = benchProxierOptions()
const options: NftablesOptions = {...base, masqueradeBit: base.masqueradeBit, masqueradeAll: false, serviceCIDRs: ['172.30.0.0/16']}
const input = {services: objects.services, endpointSlices: objects.endpointSlices, options}
const DROPPED = 'ip daddr . meta l4proto . th dport vmap @service-ips'

const listingText = serializeNftTable(generateNftables(input)).replace(`\t\t${DROPPED}\n`, '')
console.log(`listing_size: ${(listingText.length / 1e6).toFixed(1)} MB`)

// What `proxy diff --mode nftables` does: render the expected table, parse the node's listing, diff. The target.
const t0 = performance.now()
const table = time('render', () => generateNftables(input))
const actual = time('parse_listing', () => findNftTable(parseNft(listingText), 'ip', 'kube-proxy'))
const diffs = time('diff', () => diffNftables(table, actual))
const elapsed = performance.now() - t0
const stats = nftTableStats(table)
console.log(`table: ${stats.chains} chains, ${stats.rules} rules, ${stats.sets} sets/maps, ${stats.elements} elements`)
console.log(`differences: ${diffs.length} (expected 1, the planted missing rule: ${diffs.map((d) => d.kind).join(', ')})`)
console.log(`render_parse_diff: ${elapsed.toFixed(1)} ms`)
// What `proxy render --mode nftables` adds: the table as `nft list` text.
const text = time('serialize', () => serializeNftTable(table))
console.log(`rendered: ${(text.length / 1e6).toFixed(1)} MB of nft list text`)
console.log(`peak_rss: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)
