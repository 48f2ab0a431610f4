// Writes the fire/quiet bundles for the KUBELET checks under test/fixtures/checks/kubelet/<case>/ and cases.json.
// The worlds (kubeadm-style config.yaml, ConfigMap, unit, kubeadm-flags.env, containerd config, /configz) are
// built in code in test/support/kubelet-cases.ts. Run: node --import tsx scripts/make-kubelet-fixtures.ts
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'
import {HEALTHY, KUBELET_CASES, type KubeletWorld, kubeletWorld, NODE} from '../test/support/kubelet-cases.js'

const DIR = 'test/fixtures/checks/kubelet'

async function write(name: string, world: KubeletWorld): Promise<void> {
  const out = join(DIR, name)
  const {cluster, node} = kubeletWorld(world)
  rmSync(out, {recursive: true, force: true})
  await writeBundle(out, {
    manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: `fixture-kubelet-${name}`, nodes: [NODE]},
    cluster,
    nodes: [node],
  })
  console.log(`wrote ${out}`)
}

mkdirSync(DIR, {recursive: true})
await write('healthy', HEALTHY)
for (const c of KUBELET_CASES) await write(c.name, c.world)
// cases.json names each id's first fire case; the others are checked by test/unit/core/checks/kubelet/kubelet.test.ts.
const cases = Object.fromEntries(KUBELET_CASES.filter((c, i) => KUBELET_CASES.findIndex((d) => d.id === c.id) === i).map((c) => [c.id, {fire: c.name, quiet: 'healthy', node: NODE}]))
writeFileSync(join(DIR, 'cases.json'), JSON.stringify(cases, null, 2) + '\n')
