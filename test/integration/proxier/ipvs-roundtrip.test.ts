// The IPVS proxier's state through the real tools: the rendered ipsets go through the real `ipset restore`, the
// iptables rules through the real `iptables-restore --noflush` (with kube-proxy's built-in jumps inserted by
// `iptables -I`), and the kube-ipvs0 addresses onto a real link, all in a fresh network namespace. Read back
// with the real `ipset save`, `iptables-save` and `ip -j addr`, the diff must be empty; removing one entry, one
// address or one rule with the real tools must make the diff name exactly that. The kernel here has no IPVS, so
// the virtual servers come from the rendered `ipvsadm -Sn` text and the rules needing the `ipvs` match
// (KUBE-IPVS-OUT-FILTER) are not in the chosen cases.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {diffIpvs} from '../../../src/core/diff/ipvs.js'
import {parseIptablesSave} from '../../../src/core/iptables/save.js'
import {parseIpset} from '../../../src/core/parse/ipset.js'
import {parseLinks} from '../../../src/core/parse/links.js'
import {formatIpsetSave, formatIpvsIptablesRestore, type IpvsState} from '../../../src/core/proxier/ipvs/generate.js'
import {restoreRuleLine} from '../../../src/core/proxier/iptables/ruleset.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'
import {renderIpvsCase} from '../../unit/core/proxier/ipvs/helpers.js'

const skip = netnsUnavailable()

function load(ns: Netns, state: IpvsState): void {
  ns.exec(['ipset', 'restore'], formatIpsetSave(state))
  ns.exec(['iptables-restore', '--noflush'], formatIpvsIptablesRestore(state))
  for (const j of state.iptables.builtinJumps) {
    const argv = restoreRuleLine({table: j.table, chain: j.chain, args: j.args}).split(' ').slice(2)
    // The comment is one argument: rejoin the quoted words.
    const args: string[] = []
    for (let i = 0; i < argv.length; i++) {
      if (argv[i]!.startsWith('"')) {
        let word = argv[i]!
        while (!word.endsWith('"')) word += ` ${argv[++i]}`
        args.push(word.slice(1, -1))
      } else args.push(argv[i]!)
    }
    ns.exec(['iptables', '-t', j.table, '-I', j.chain, ...args])
  }
  // NOTE: kube-proxy's kube-ipvs0 is a dummy link; this kernel has no dummy driver, and a bridge holds addresses alike.
  ns.exec(['ip', 'link', 'add', 'kube-ipvs0', 'type', 'bridge'])
  for (const a of state.boundAddresses) ns.exec(['ip', 'addr', 'add', `${a}/32`, 'dev', 'kube-ipvs0'])
}

function readBack(ns: Netns, state: IpvsState) {
  return diffIpvs(state, {
    ipsets: parseIpset(ns.exec(['ipset', 'save'])),
    iptables: parseIptablesSave(ns.exec(['iptables-save']), {family: 'ipv4'}),
    links: parseLinks(ns.exec(['ip', '-j', 'addr', 'show'])),
  })
}

describe('IPVS proxier ⇄ real ipset, iptables-restore/save and ip', {skip}, () => {
  let ns: Netns
  before(() => (ns = createNetns('nd-ipvs')))
  after(() => ns?.destroy())

  for (const kase of ['traffic-policy', 'affinity-terminating', 'scheduler-mh', 'nodeport-addresses']) {
    it(`${kase}: loads, reads back and diffs clean; a removed entry, address and rule are named exactly`, () => {
      const state = renderIpvsCase(kase)
      // A fresh start: no sets, no kube chains, no dummy link.
      ns.run(['ip', 'link', 'del', 'kube-ipvs0'])
      for (const t of ['nat', 'filter']) {
        ns.exec(['iptables', '-t', t, '-F'])
        ns.exec(['iptables', '-t', t, '-X'])
      }
      ns.exec(['ipset', 'destroy'])
      load(ns, state)
      assert.deepEqual(readBack(ns, state), [], 'clean after loading')

      const set = state.ipsets.find((s) => s.entries.length > 0 && s.name !== 'KUBE-IPVS-IPS')!
      const entry = set.entries[0]!
      const address = state.boundAddresses[0]!
      ns.exec(['ipset', 'del', set.name, entry])
      ns.exec(['ip', 'addr', 'del', `${address}/32`, 'dev', 'kube-ipvs0'])
      ns.exec(['iptables', '-t', 'nat', '-D', 'KUBE-LOAD-BALANCER', '-j', 'KUBE-MARK-MASQ'])
      const d = readBack(ns, state)
      assert.deepEqual(
        d.map((x) => x.kind),
        ['missing-address', 'missing-ipset-entry', 'missing-iptables-rule'],
        JSON.stringify(d),
      )
      assert.deepEqual(d.map((x) => ('address' in x ? x.address : 'entry' in x ? `${x.set} ${x.entry}` : 'rule' in x ? `${x.chain} ${x.rule}` : '')), [
        address,
        `${set.name} ${entry}`,
        'KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ',
      ])
    })
  }
})
