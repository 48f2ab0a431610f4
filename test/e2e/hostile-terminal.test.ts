// Hostile text from nodes and the API never reaches the terminal as control sequences (issue #14, item 5): the
// built CLI, fed node files, bundles and names carrying ESC/OSC/CSI/C1 sequences, prints no raw ESC or C1 byte on
// stdout or stderr in any human format, and JSON keeps the exact data (escaped).
import assert from 'node:assert/strict'
import {cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {REPO_ROOT} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const ESC = '\x1b'
const PAYLOAD = `${ESC}]52;c;cHduZWQ=${ESC}\\${ESC}[2J${ESC}]0;owned\x07${ESC}[6n\u009b31m`
const RAW = /[\x1b\x07\u0080-\u009f]/

function clean(where: string, text: string): void {
  const m = RAW.exec(text)
  assert.equal(m, null, `${where}: raw control byte U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m?.index}: ${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 20))}`)
}

describe('hostile terminal output', () => {
  let dir: string
  let bundle: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nd-hostile-term-'))
    bundle = join(dir, 'bundle')
    cpSync(join(REPO_ROOT, 'examples', 'bundle'), bundle, {recursive: true})
    // iptables comments, a Service name, ConfigMap data and the kernel version, all carrying the payload.
    const ipt = join(bundle, 'nodes/node-a/iptables-save.txt')
    writeFileSync(ipt, readFileSync(ipt, 'utf8').replace(/--comment "([^"]*)"/, `--comment "$1 ${PAYLOAD}"`))
    const snap = join(bundle, 'cluster/snapshot.json')
    const cluster = JSON.parse(readFileSync(snap, 'utf8')) as {nodes: Array<{status: {nodeInfo?: Record<string, string>}}>; services: Array<{metadata: {name: string}}>; configMaps: Array<{data?: Record<string, string>}>}
    for (const n of cluster.nodes) n.status.nodeInfo = {...n.status.nodeInfo, kernelVersion: `6.1.0${PAYLOAD}`, kubeletVersion: 'v1.33.1'}
    cluster.services[0]!.metadata.name += PAYLOAD
    for (const cm of cluster.configMaps) for (const k of Object.keys(cm.data ?? {})) cm.data![k] = `# ${PAYLOAD}\n${cm.data![k]}`
    writeFileSync(snap, JSON.stringify(cluster))
  })
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('analyze: table, wide and markdown-free human output and stderr carry no raw control byte; JSON keeps the data escaped', async () => {
    for (const format of ['table', 'wide']) {
      const r = await runCli(['analyze', bundle, '-o', format, '--fail-on', 'none'])
      assert.ok([0, 3].includes(r.exitCode), r.stderr)
      clean(`analyze -o ${format} stdout`, r.stdout)
      clean(`analyze -o ${format} stderr`, r.stderr)
    }
    const j = await runCli(['analyze', bundle, '-o', 'json', '--fail-on', 'none'])
    clean('analyze -o json', j.stdout)
    JSON.parse(j.stdout)
  })

  it('iptables show of a dump whose comments carry escapes, in every format', async () => {
    const file = join(dir, 'iptables-save.txt')
    writeFileSync(file, `*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment "ns/svc${PAYLOAD}" -j ACCEPT\nCOMMIT\n`)
    for (const format of ['table', 'wide', 'json', 'yaml']) {
      const r = await runCli(['iptables', 'show', '-f', file, '-o', format])
      clean(`iptables show -o ${format} stdout`, r.stdout)
      clean(`iptables show -o ${format} stderr`, r.stderr)
      if (format === 'json') assert.match(r.stdout, /\\u001b\]52;c;cHduZWQ=/, 'JSON keeps the data, escaped')
    }
  })

  it('kubelet show of a config whose comments and values carry escapes', async () => {
    const file = join(dir, 'config.yaml')
    writeFileSync(file, `# ${PAYLOAD}\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDomain: "cluster.local${PAYLOAD.replaceAll('\\', '\\\\').replaceAll(ESC, '\\e').replaceAll('\x07', '\\a')}"\n`)
    for (const format of ['table', 'wide', 'yaml']) {
      const r = await runCli(['kubelet', 'show', '--from-file', file, '-o', format])
      clean(`kubelet show -o ${format} stdout`, r.stdout)
      clean(`kubelet show -o ${format} stderr`, r.stderr)
    }
  })

  it('error messages on stderr: a file name with escapes', async () => {
    const r = await runCli(['iptables', 'show', '-f', join(dir, `missing${PAYLOAD}.txt`)])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /does not exist/)
    clean('stderr', r.stderr)
  })
})
