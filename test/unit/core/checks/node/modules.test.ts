// NODE-022 beyond the catalog's fire/quiet pair. Inputs are the captures under test/fixtures/checks/node-datapath
// (scripts/make-node-datapath-fixtures.ts: the plan's modules-available script run for real against this kernel's
// /sys/module and a constructed modules directory), with single lines or API objects edited per case.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {argvExtensions, checkModules, dumpExtensions, EXTENSION_MODULES, modulesForMode} from '../../../../../src/core/checks/node/modules.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {parseModulesAvailable} from '../../../../../src/core/parse/kernel-modules.js'
import {ParseError} from '../../../../../src/errors.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node-datapath')

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

function edit(node: NodeSnapshot, id: string, f: (s: string) => string): NodeSnapshot {
  const n = structuredClone(node)
  n.artifacts[id] = {...n.artifacts[id]!, content: f(n.artifacts[id]!.content)}
  return n
}

function withConfig(cluster: ClusterSnapshot, config: string): ClusterSnapshot {
  const c = structuredClone(cluster)
  for (const cm of c.configMaps) if (cm.data?.['config.conf'] !== undefined) cm.data['config.conf'] = cm.data['config.conf'].replace(/^mode: .*\n/m, '') + config
  return c
}

const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const messages = (o: CheckOutcome) => (o.status === 'failed' ? o.findings.map((f) => f.message) : [])

describe('NODE-022 kernel modules per mode', () => {
  it('parses the script output and names bad lines', () => {
    assert.deepEqual([...parseModulesAvailable('ip_vs loadable\nnf_tables absent\n')], [['ip_vs', 'loadable'], ['nf_tables', 'absent']])
    assert.throws(() => parseModulesAvailable('ip_vs loadable\nsh: 1: grep: not found\n'), (e: unknown) => e instanceof ParseError && e.line === 2)
  })

  it('each mode needs its modules; the IPVS scheduler and ClientIP affinity add theirs', () => {
    assert.deepEqual(modulesForMode('ipvs', {scheduler: 'wrr', clientIPAffinity: false}), ['ip_vs', 'ip_vs_wrr', 'nf_conntrack'])
    assert.deepEqual(modulesForMode('nftables', {scheduler: 'rr', clientIPAffinity: false}), ['nf_tables', 'nf_conntrack', 'nf_nat'])
    assert.ok(modulesForMode('iptables', {scheduler: 'rr', clientIPAffinity: true}).includes('xt_recent'))
  })

  it('a mode switch pending on a kernel without nf_tables fires for the next start', async () => {
    const out = checkModules(await load('modules-nft-absent'))
    assert.match(messages(out)[0]!, /^kube-proxy is configured for nftables mode \(.*\), which it uses at its next start, but nf_tables is neither loaded, built in nor installed/)
  })

  it('IPVS configured but not running is left to PROXY-001; IPVS running with an absent scheduler module fires', async () => {
    const {cluster, node} = await load('bridge-ok')
    const noWrr = edit(node, 'modules-available', (s) => s.replace('ip_vs_wrr loadable', 'ip_vs_wrr absent'))
    const ipvsWrr = withConfig(cluster, 'mode: ipvs\nipvs:\n  scheduler: wrr\n')
    assert.equal(checkModules({cluster: ipvsWrr, node: noWrr}).status, 'passed', 'running iptables: the ipvs part is PROXY-001\'s')
    const running = edit(noWrr, 'proxy-mode', () => 'ipvs')
    assert.match(messages(checkModules({cluster: ipvsWrr, node: running}))[0]!, /^kube-proxy runs ipvs mode but ip_vs_wrr is neither loaded/)
  })

  it('iptables extensions: from a rule\'s argv and from a whole iptables-save text', () => {
    assert.deepEqual(argvExtensions(['-m', 'comment', '--comment', 'x', '-m', 'sctp', '-p', 'sctp', '-j', 'REJECT']), ['m:comment', 'm:sctp', 'j:REJECT'])
    assert.deepEqual([...dumpExtensions('*nat\n-A POSTROUTING -m comment --comment "a b" -j MASQUERADE\nCOMMIT\n')].sort(), ['j:MASQUERADE', 'm:comment'])
    assert.deepEqual(EXTENSION_MODULES['j:MASQUERADE'], ['xt_MASQUERADE', 'ipt_MASQUERADE'], 'either name satisfies it (older kernels have ipt_MASQUERADE)')
  })

  it('the rules kube-proxy will write: an SCTP Service on a kernel without xt_sctp fires, naming the rule; quiet once the module is loadable or -m sctp is in use', async () => {
    const {cluster, node} = await load('modules-sctp-absent')
    const out = checkModules({cluster, node})
    assert.deepEqual(messages(out), [
      "kube-proxy runs iptables mode but xt_sctp is neither loaded, built in nor installed for the running kernel: its rules for this node use -m sctp, which the node's rules do not use yet: iptables-restore refuses the whole sync that writes them, so no Service change reaches the node",
    ])
    assert.match(out.status === 'failed' ? (out.findings[0]!.evidence ?? [])[0]! : '', /^xt_sctp: absent \(for -m sctp, e\.g\. -A KUBE-SERVICES .*default\/sctp-echo:echo has no endpoints.* -m sctp -p sctp -d 172\.30\.7\.1 --dport 9999 -j REJECT\)$/)
    assert.equal(checkModules({cluster, node: edit(node, 'modules-available', (s) => s.replace('xt_sctp absent', 'xt_sctp loadable'))}).status, 'passed')
    // A rule the kernel already holds proves its module, whatever modules-available says.
    const inUse = edit(node, 'iptables-save', (s) => s.replace(/^COMMIT$/m, '-A INPUT -p sctp -m sctp --dport 3868 -j ACCEPT\nCOMMIT'))
    assert.equal(checkModules({cluster, node: inUse}).status, 'passed')
    // Without the Service, nothing kube-proxy writes needs it.
    const without = structuredClone(cluster)
    without.services = without.services.filter((s) => s.metadata.name !== 'sctp-echo')
    assert.equal(checkModules({cluster: without, node}).status, 'passed')
  })

  it('modules the node\'s rules already use are never judged, even reported absent (built into a kernel without modules.builtin, iptables-nft)', async () => {
    const {cluster, node} = await load('bridge-ok')
    const gone = edit(node, 'modules-available', (s) => s.replace(/^(xt_\w+|ipt_\w+|nf_nat) loadable$/gm, '$1 absent'))
    assert.equal(checkModules({cluster, node: gone}).status, 'passed')
  })

  it('without a module directory for the running kernel (this test kernel has none) it cannot tell', async () => {
    const {cluster, node} = await load('bridge-ok')
    const none = edit(node, 'modules-available', (s) => s.replaceAll('loadable', 'unknown'))
    // Running iptables: every module kube-proxy's rules need is proven by the rules the kernel already holds.
    assert.equal(checkModules({cluster, node: none}).status, 'passed')
    assert.match(reason(checkModules({cluster: withConfig(cluster, 'mode: nftables\n'), node: none})), /^cannot tell: nf_tables, nf_nat not found loaded/)
    const n = structuredClone(node)
    delete n.artifacts['modules-available']
    assert.equal(reason(checkModules({cluster, node: n})), 'missing input: modules-available')
  })
})
