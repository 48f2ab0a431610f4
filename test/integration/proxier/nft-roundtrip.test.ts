// The real nftables round trip: each rendered kube-proxy table (the feature cases of the golden test) is loaded with
// the real `nft -f` into a fresh network namespace, listed back with the real `nft list table` and `nft -j list
// ruleset`, and the diff must be empty. Deleting one map element and one rule with real nft commands must make the
// diff name exactly those two. kube-proxy's own TestOverallNFTablesRules transaction, loaded into nft, must diff
// clean against our render of the same objects.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {diffTablesAgainstListing} from '../../../src/core/checks/nftables/diff.js'
import {diffNftables, normalizeNftRule} from '../../../src/core/diff/nftables.js'
import {findNftTable, parseNft} from '../../../src/core/parse/nft.js'
import {type NftExpectedTable, serializeNftTable} from '../../../src/core/proxier/nftables/table.js'
import {readFixture} from '../../support/golden.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'
import {NFT_CASES, renderCase} from '../../unit/core/proxier/nftables/cases.js'

const skip = netnsUnavailable() ?? (createNetnsProbe() ? undefined : 'nft is not installed')

function createNetnsProbe(): boolean {
  try {
    const ns = createNetns('nd-nftp')
    const ok = ns.run(['nft', '--version']).status === 0
    ns.destroy()
    return ok
  } catch {
    return false
  }
}

describe('nftables proxier ⇄ real nft', {skip}, () => {
  let ns: Netns
  before(() => (ns = createNetns('nd-nft')))
  after(() => ns?.destroy())

  const load = (text: string): void => {
    ns.exec(['nft', 'flush', 'ruleset'])
    ns.exec(['nft', '-f', '-'], text)
  }
  const listText = (t: NftExpectedTable) => parseNft(ns.exec(['nft', 'list', 'table', t.family, t.name]))
  const listJson = () => parseNft(ns.exec(['nft', '-j', 'list', 'ruleset']))

  for (const c of NFT_CASES) {
    const name = `${c.golden ?? c.dir}${c.version ? ` (${c.version})` : ''}`
    it(`${name}: loads exactly as printed and lists back with an empty diff (text and JSON)`, () => {
      const t = renderCase(c)
      load(serializeNftTable(t))
      assert.deepEqual(diffNftables(t, findNftTable(listText(t), t.family, t.name)), [], 'nft list table')
      assert.deepEqual(diffNftables(t, findNftTable(listJson(), t.family, t.name)), [], 'nft -j list ruleset')
    })
  }

  it('one deleted element and one deleted rule are named exactly, as NFT-007 and NFT-004', () => {
    const t = renderCase({dir: 'clusterip'})
    load(serializeNftTable(t))
    const chain = t.chains.find((c) => c.name.startsWith('service-') && c.rules.length > 1)!
    const element = t.sets.find((s) => s.name === 'service-ips')!.elements.find((e) => e.servicePort === chain.servicePort)!
    ns.exec(['nft', 'delete', 'element', 'ip', 'kube-proxy', 'service-ips', `{ ${element.key} }`])
    const victim = chain.rules[0]!.text
    const listed = ns.exec(['nft', '-a', 'list', 'chain', 'ip', 'kube-proxy', chain.name])
    const line = listed.split('\n').find((l) => normalizeNftRule(l.replace(/\s+# handle \d+\s*$/, '')) === victim)
    assert.ok(line, `found ${victim} in\n${listed}`)
    ns.exec(['nft', 'delete', 'rule', 'ip', 'kube-proxy', chain.name, 'handle', /# handle (\d+)/.exec(line)![1]!])

    for (const listing of [listText(t), listJson()]) {
      const d = diffNftables(t, findNftTable(listing, 'ip', 'kube-proxy'))
      assert.deepEqual(d, [
        {kind: 'missing-rule', chain: chain.name, rule: victim, group: chain.servicePort},
        {kind: 'missing-element', set: 'service-ips', element: `${element.key} : ${element.value}`, group: element.servicePort},
      ])
      const outcome = diffTablesAgainstListing([t], listing, 'node-a')
      assert.deepEqual(outcome.findings.map((f) => f.id).sort(), ['NFT-004', 'NFT-007'])
      assert.ok(outcome.findings.every((f) => f.group === chain.servicePort))
    }
  })

  // The upstream dump is sorted, so chains are used before they are added: declare objects first, as nft needs.
  const loadUpstream = (fixture: string): void => {
    const lines = readFixture(fixture).split('\n')
    const first = (re: RegExp) => lines.filter((l) => re.test(l))
    load([...first(/^add table /), ...first(/^add (set|map|counter) /), ...first(/^add chain /), ...lines.filter((l) => !/^add (table|set|map|counter|chain) /.test(l))].join('\n'))
  }

  it("kube-proxy's TestOverallNFTablesRules transaction, loaded into nft, diffs clean against our render (v1.34, v1.35)", () => {
    loadUpstream('proxier/nftables/upstream-overall/upstream-expected.nft')
    for (const version of ['v1.34', 'v1.35']) {
      const t = renderCase({dir: 'upstream-overall', own: true, node: 'test-node', version})
      assert.deepEqual(diffNftables(t, findNftTable(listText(t), 'ip', 'kube-proxy')), [], `text, ${version}`)
      assert.deepEqual(diffNftables(t, findNftTable(listJson(), 'ip', 'kube-proxy')), [], `json, ${version}`)
    }
    // The v1.31 layout differs from it exactly where kube-proxy changed (base chains, masquerade rule match).
    const old = renderCase({dir: 'upstream-overall', own: true, node: 'test-node', version: 'v1.33'})
    const kinds = new Set(diffNftables(old, findNftTable(listText(old), 'ip', 'kube-proxy')).map((d) => d.kind))
    assert.ok(kinds.has('missing-chain') && kinds.has('stale-chain') && kinds.has('missing-rule'))
  })

  // v1.36+ (kubernetes#135800, #136499), expectations @edca5633 (README.md in the fixtures says which test).
  for (const dir of ['upstream-overall-v1.36', 'upstream-bad-ips-v1.36', 'upstream-sync-startup-v1.36', 'upstream-sync-repeated-v1.36']) {
    it(`kube-proxy's ${dir} transaction, loaded into nft, diffs clean against our v1.36 render, and v1.37 differs exactly by the single-endpoint DNAT`, () => {
      loadUpstream(`proxier/nftables/${dir}/upstream-expected.nft`)
      const t = renderCase({dir, own: true, node: 'test-node', version: 'v1.36'})
      assert.deepEqual(diffNftables(t, findNftTable(listText(t), 'ip', 'kube-proxy')), [], 'text, v1.36')
      assert.deepEqual(diffNftables(t, findNftTable(listJson(), 'ip', 'kube-proxy')), [], 'json, v1.36')
      // v1.37.0 shipped kubernetes#140723/#140960 after these expectations were written: services with one endpoint
      // and no session affinity DNAT directly instead of through a one-entry numgen map. Nothing else differs.
      const t37 = renderCase({dir, own: true, node: 'test-node', version: 'v1.37'})
      const d = diffNftables(t37, findNftTable(listText(t37), 'ip', 'kube-proxy'))
      const singles = t37.chains.filter((c) => c.rules.length === 1 && /^meta l4proto tcp dnat to [\d.]+:\d+$/.test(c.rules[0]!.text) && c.name.startsWith('service-'))
      assert.ok(singles.length > 0)
      assert.deepEqual(
        d.map((x) => `${x.kind} ${'chain' in x ? x.chain : ''} ${'rule' in x ? x.rule : ''}`).sort(),
        singles.flatMap((c) => {
          const ep = /dnat to ([\d.]+):(\d+)$/.exec(c.rules[0]!.text)!
          return [`missing-rule ${c.name} ${c.rules[0]!.text}`, `extra-rule ${c.name} meta l4proto tcp dnat ip to numgen random mod 1 map { 0 : ${ep[1]} . ${ep[2]} }`]
        }).sort(),
      )
      assert.deepEqual(diffNftables(t37, findNftTable(listJson(), 'ip', 'kube-proxy')).length, d.length, 'json, v1.37')
    })
  }
})
