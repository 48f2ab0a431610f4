import {diffIptables} from '../src/core/diff/iptables.js'
import {chainGroups, viewFromDump, viewFromSaved} from '../src/core/diff/iptables-view.js'
import {parseIptablesSave} from '../src/core/parse/iptables-save.js'
import {featureGatesFor, NEWEST_SUPPORTED_VERSION, type ProxierOptions} from '../src/core/proxier/config.js'
import {generateIptablesRestore} from '../src/core/proxier/iptables/generate.js'
import {savedState, serializeSave} from '../src/core/proxier/iptables/save.js'
import {loadObjects} from '../src/core/proxier/objects.js'
import {benchObjectsJson} from './proxier-objects.js'
const objects = loadObjects([{name: 'bench.json', text: benchObjectsJson(10000, 10)}])
const options: ProxierOptions = {family: 'ipv4', version: NEWEST_SUPPORTED_VERSION, nodeName: 'node-0', nodeIP: '192.168.0.2', masqueradeBit: 14, masqueradeAll: false, localDetector: {mode: 'ClusterCIDR', cidr: '10.0.0.0/8'}, nodePortAddresses: [], localhostNodePorts: true, randomFully: true, nfacct: {ctStateInvalidDroppedPkts: true, localhostNpsAcceptedPkts: true}, tcpBeLiberal: false, nodeInterfaceAddresses: ['127.0.0.1', '192.168.0.2'], featureGates: featureGatesFor(NEWEST_SUPPORTED_VERSION)}
const out = generateIptablesRestore({services: objects.services, endpointSlices: objects.endpointSlices, options})
const text = serializeSave(out.ruleset)
const i = text.indexOf('-A KUBE-SERVICES ')
const nodeDump = text.slice(0, i) + text.slice(text.indexOf('\n', i) + 1)
const cpu = (f: () => unknown, name: string) => { const c = process.cpuUsage(); const t = performance.now(); const v = f(); const d = process.cpuUsage(c); console.log(name, ((d.user + d.system) / 1000).toFixed(0), 'wall', (performance.now() - t).toFixed(0)); return v }
const what = process.env.WHAT ?? 'diff'
for (let k = 0; k < 4; k++) {
  const expected = cpu(() => viewFromSaved(savedState(out.ruleset)), 'expected')
  const dump = cpu(() => parseIptablesSave(nodeDump), 'parse')
  const actual = cpu(() => viewFromDump(dump), 'view')
  const groups = cpu(() => chainGroups(out.ruleset), 'groups')
  cpu(() => diffIptables(expected.view, actual, {chainGroups: groups, requiredJumps: expected.requiredJumps}), 'diff')
}
