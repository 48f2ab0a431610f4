// Builds the fire/quiet bundles for the iptables checks under test/fixtures/checks/iptables (root needed: the
// dumps come from the real iptables in a network namespace). Run: node --import tsx scripts/make-check-fixtures.ts
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {deleteRule, fixtureObjects, type Netns, realDump, writeNodeBundle} from './lib/iptables-fixtures.js'

const root = 'test/fixtures/checks/iptables'
rmSync(root, {recursive: true, force: true})
mkdirSync(root, {recursive: true})
const objects = fixtureObjects(['loadbalancer', 'session-affinity'])
const NODE = 'node-a'

function chainOf(ns: Netns, needle: string): string {
  const line = ns.run(['iptables', '-t', 'nat', '-S']).split('\n').find((l) => l.startsWith('-A ') && l.includes(needle))
  if (!line) throw new Error(`no rule contains ${needle}`)
  return line.split(' ')[1]!
}

const faults: Record<string, (ns: Netns) => void> = {
  // An endpoint chain disappears (and the jump to it with it, as a failed partial restore leaves things).
  'missing-chain': (ns) => {
    const sep = chainOf(ns, 'DNAT --to-destination 10.0.1.32:8080')
    for (const jump of ns.run(['iptables', '-t', 'nat', '-S']).split('\n').filter((l) => l.endsWith(`-j ${sep}`))) {
      deleteRule(ns, 'nat', jump.split(' ')[1]!, `-j ${sep}`)
    }
    ns.run(['iptables', '-t', 'nat', '-F', sep])
    ns.run(['iptables', '-t', 'nat', '-X', sep])
  },
  'stale-chain': (ns) => {
    ns.run(['iptables', '-t', 'nat', '-N', 'KUBE-SEP-OLDENDPOINT0000A'])
    ns.run(['iptables', '-t', 'nat', '-A', 'KUBE-SEP-OLDENDPOINT0000A', '-p', 'tcp', '-m', 'comment', '--comment', 'default/lb:http', '-m', 'tcp', '-j', 'DNAT', '--to-destination', '10.0.2.99:80'])
  },
  'missing-rule': (ns) => void deleteRule(ns, 'nat', 'KUBE-SERVICES', 'default/lb:http cluster IP'),
  'extra-rule': (ns) => {
    const svc = chainOf(ns, 'default/lb:http -> ')
    ns.run(['iptables', '-t', 'nat', '-I', svc, '1', '-m', 'comment', '--comment', 'default/lb:http -> 10.0.9.9:80', '-j', 'KUBE-MARK-MASQ'])
  },
  'wrong-probability': (ns) => {
    const line = ns.run(['iptables', '-t', 'nat', '-S']).split('\n').find((l) => l.includes('--probability 0.50000000000'))!
    const chain = line.split(' ')[1]!
    const rules = ns.run(['iptables', '-t', 'nat', '-S', chain]).split('\n')
    const index = rules.filter((l) => l.startsWith('-A ')).indexOf(line) + 1
    const spec = line.slice(`-A ${chain} `.length).replace('0.50000000000', '0.33333333349')
    ns.run(['sh', '-c', `iptables -t nat -R ${chain} ${index} ${spec}`])
  },
  misordered: (ns) => {
    const jump = deleteRule(ns, 'nat', 'KUBE-SERVICES', 'must be the last rule')
    ns.run(['sh', '-c', `iptables -t nat -I KUBE-SERVICES 1 ${jump.slice('-A KUBE-SERVICES '.length)}`])
  },
  'missing-builtin-jump': (ns) => void deleteRule(ns, 'nat', 'PREROUTING', 'kubernetes service portals'),
}

const cases: Record<string, {fire: string; quiet: string; node: string}> = {}
const ids: Record<string, string> = {
  'missing-chain': 'IPT-001',
  'stale-chain': 'IPT-002',
  'missing-rule': 'IPT-003',
  'extra-rule': 'IPT-004',
  'wrong-probability': 'IPT-005',
  misordered: 'IPT-006',
  'missing-builtin-jump': 'IPT-008',
}
await writeNodeBundle(`${root}/clean`, objects, {[NODE]: realDump(objects, NODE)})
for (const [name, fault] of Object.entries(faults)) {
  await writeNodeBundle(`${root}/${name}`, objects, {[NODE]: realDump(objects, NODE, fault)})
  cases[ids[name]!] = {fire: name, quiet: 'clean', node: NODE}
}
// A jump to a chain that does not exist cannot be loaded into a real kernel; it shows up in dumps taken while a
// restore is half-applied. Derive it from the clean dump by removing one endpoint chain's declaration and rules.
{
  const clean = readFileSync(`${root}/clean/nodes/${NODE}/iptables-save.txt`, 'utf8')
  const sep = /-j (KUBE-SEP-\w+)/.exec(clean)![1]!
  const broken = clean
    .split('\n')
    .filter((l) => l !== `:${sep} - [0:0]` && !l.startsWith(`-A ${sep} `))
    .join('\n')
  await writeNodeBundle(`${root}/undefined-jump`, objects, {[NODE]: broken})
  cases['IPT-007'] = {fire: 'undefined-jump', quiet: 'clean', node: NODE}
}
writeFileSync(`${root}/cases.json`, JSON.stringify(cases, null, 2) + '\n')
console.log(`wrote ${Object.keys(cases).length} cases under ${root}`)
