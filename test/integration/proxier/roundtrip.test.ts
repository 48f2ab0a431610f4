// The real round trip (issue: embedded proxier): the expected state rendered in iptables-save form is loaded with
// the real iptables-restore into a fresh network namespace, read back with the real iptables-save, and the diff
// must be empty; deleting one rule with the real `iptables -D` must make the diff name exactly that rule.
// nfacct matches are rendered off: the kernel objects they need are not created in a test namespace.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {after, before, describe, it} from 'node:test'
import {diffRulesetAgainstDump} from '../../../src/core/checks/iptables/diff.js'
import {parseIptablesSave} from '../../../src/core/iptables/save.js'
import {generateIptablesRestore} from '../../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../../src/core/proxier/render-input.js'
import {fixturePath} from '../../support/golden.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'
import {tokenizeRule} from '../../../src/core/iptables/tokenize.js'

const CASES = ['clusterip', 'nodeport', 'loadbalancer', 'etp-local', 'itp-local', 'externalips', 'session-affinity', 'no-endpoints', 'terminating', 'topology-hints', 'masquerade-all', 'localhost-nodeports-off', 'nodeport-addresses', 'detect-local-bridge']

function render(kase: string, family: 'ipv4' | 'ipv6' = 'ipv4', node = 'node-a') {
  const objects = loadObjects(
    [`proxier/iptables/${kase}/objects.yaml`, 'proxier/iptables/nodes.yaml'].map((p) => ({name: p, text: readFileSync(fixturePath(p), 'utf8')})),
  )
  const input = buildRenderInput(objects, {nodeName: node, facts: {nfacct: false, family}})
  return generateIptablesRestore(input.input).ruleset
}

const skip = netnsUnavailable()

describe('proxier ⇄ real iptables-restore/iptables-save', {skip}, () => {
  let ns: Netns
  before(() => (ns = createNetns('nd-rt')))
  after(() => ns?.destroy())

  for (const kase of CASES) {
    it(`${kase}: loads, saves back, and diffs clean; one deleted rule is named exactly`, () => {
      const ruleset = render(kase)
      // Start each case from empty tables in the namespace.
      ns.exec(['iptables', '-t', 'nat', '-F'])
      ns.exec(['iptables', '-t', 'nat', '-X'])
      ns.exec(['iptables', '-t', 'filter', '-F'])
      ns.exec(['iptables', '-t', 'filter', '-X'])
      ns.exec(['iptables-restore'], serializeSave(ruleset))
      const saved = ns.exec(['iptables-save'])
      const clean = diffRulesetAgainstDump(ruleset, parseIptablesSave(saved), 'node-a')
      assert.deepEqual(clean.differences, [], `no differences after a real round trip of ${kase}`)
      assert.ok(clean.results.every((r) => r.status === 'passed'))

      // Delete one service rule with the real iptables -D, then expect exactly that rule to be missing.
      let table = ''
      const candidates: Array<{table: string; line: string}> = []
      for (const line of saved.split('\n')) {
        if (line.startsWith('*')) table = line.slice(1)
        else if (/^-A KUBE-(SVC|SEP|EXT|FW|NODEPORTS|SERVICES|EXTERNAL-SERVICES)/.test(line) && !line.includes('must be the last rule')) candidates.push({table, line})
      }
      const victim = candidates.find((c) => c.table === 'nat') ?? candidates[0]
      assert.ok(victim, `${kase} has a service rule to delete`)
      const args = tokenizeRule(victim.line)
      ns.exec(['iptables', '-t', victim.table, '-D', ...args.slice(1)])
      const after = diffRulesetAgainstDump(ruleset, parseIptablesSave(ns.exec(['iptables-save'])), 'node-a')
      const chain = args[1]!
      const body = victim.line.slice(`-A ${chain} `.length)
      assert.equal(after.differences.length, 1, `exactly one difference, got ${JSON.stringify(after.differences)}`)
      const d = after.differences[0]!
      assert.equal(d.kind, 'missing-rule')
      assert.ok(d.kind === 'missing-rule' && d.table === victim.table && d.chain === chain && d.rule === body)
      assert.equal(after.findings.length, 1)
      assert.equal(after.findings[0]!.id, 'IPT-003')
    })
  }

  it('ipv6: loads with ip6tables-restore and diffs clean', () => {
    const ruleset = render('ipv6', 'ipv6', 'node-v6')
    ns.exec(['ip6tables-restore'], serializeSave(ruleset))
    const saved = ns.exec(['ip6tables-save'])
    assert.deepEqual(diffRulesetAgainstDump(ruleset, parseIptablesSave(saved), 'node-v6').differences, [])
  })
})
