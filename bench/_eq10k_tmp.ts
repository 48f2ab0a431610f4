import {CanonicalRuleCache} from '../src/core/iptables/canonical-cache.js'
import {canonicalizeRule} from '../src/core/iptables/canonical.js'
import {formatRuleTokens} from '../src/core/iptables/tokenize.js'
import {featureGatesFor, NEWEST_SUPPORTED_VERSION, type ProxierOptions} from '../src/core/proxier/config.js'
import {generateIptablesRestore} from '../src/core/proxier/iptables/generate.js'
import {loadObjects} from '../src/core/proxier/objects.js'
import {benchObjectsJson} from './proxier-objects.js'
const objects = loadObjects([{name: 'bench.json', text: benchObjectsJson(10000, 10)}])
const options: ProxierOptions = {family: 'ipv4', version: NEWEST_SUPPORTED_VERSION, nodeName: 'node-0', nodeIP: '192.168.0.2', masqueradeBit: 14, masqueradeAll: false, localDetector: {mode: 'ClusterCIDR', cidr: '10.0.0.0/8'}, nodePortAddresses: [], localhostNodePorts: true, randomFully: true, nfacct: {ctStateInvalidDroppedPkts: true, localhostNpsAcceptedPkts: true}, tcpBeLiberal: false, nodeInterfaceAddresses: ['127.0.0.1', '192.168.0.2'], featureGates: featureGatesFor(NEWEST_SUPPORTED_VERSION)}
const out = generateIptablesRestore({services: objects.services, endpointSlices: objects.endpointSlices, options})
const rules = out.ruleset.tables.flatMap((t) => t.rules)
const c = new CanonicalRuleCache('ipv4')
let t0 = process.cpuUsage()
const got = rules.map((r) => c.format(r.args))
console.log('cache cpu ms', (process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1000, c.stats)
if (process.env.CHECK) {
  t0 = process.cpuUsage()
  const exp = rules.map((r) => formatRuleTokens(canonicalizeRule(r.args, 'ipv4')))
  console.log('direct cpu ms', (process.cpuUsage(t0).user) / 1000)
  let bad = 0
  for (let i = 0; i < rules.length; i++) if (got[i] !== exp[i]) { bad++; if (bad < 5) console.log(exp[i], '\n', got[i]) }
  console.log('rules', rules.length, 'bad', bad)
}
