// The generated restore input against the real tools, each case in its own fresh network namespace (never the
// host's): iptables-restore / ip6tables-restore must accept it with kube-proxy's flags (--noflush --counters), and
// after also applying kube-proxy's built-in chain jumps and canary chains, iptables-save must print exactly what
// serializeSave predicts (compared per table and chain, since the nft backend orders chains its own way).
// nfacct matches need nfacct objects this machine cannot create, so cases are rendered without nfacct counters.
import assert from 'node:assert/strict'
import {execFileSync, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {parse as parseYaml} from 'yaml'
import {parseKubeProxyVersion, type RuntimeFacts} from '../../../src/core/proxier/config.js'
import {builtinJumps, ensuredChains} from '../../../src/core/proxier/iptables/builtin.js'
import {generateIptablesRestore, type IptablesOutput} from '../../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../../src/core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText} from '../../../src/core/proxier/render-input.js'
import {FIXTURES} from '../../support/golden.js'

const BASE = join(FIXTURES, 'proxier', 'iptables')

function haveTools(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)'
  for (const tool of ['ip', 'iptables-restore', 'ip6tables-restore', 'iptables-save', 'ip6tables-save']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`
  }
  return undefined
}
const skip = haveTools()

const namespaces: string[] = []
function newNamespace(): string {
  const ns = `nd-${randomBytes(4).toString('hex')}`
  execFileSync('ip', ['netns', 'add', ns])
  namespaces.push(ns)
  return ns
}
function deleteNamespace(ns: string): void {
  spawnSync('ip', ['netns', 'delete', ns])
  namespaces.splice(namespaces.indexOf(ns), 1)
}
after(() => {
  for (const ns of [...namespaces]) deleteNamespace(ns)
})

function inNs(ns: string, cmd: string, args: string[], input?: string): {status: number; stdout: string; stderr: string} {
  const r = spawnSync('ip', ['netns', 'exec', ns, cmd, ...args], {input, encoding: 'utf8'})
  return {status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

function render(dir: string, opts: {node?: string; version?: string; facts?: Omit<RuntimeFacts, 'version'>} = {}): IptablesOutput {
  const objects = loadObjects([
    {name: 'nodes.yaml', text: readFileSync(join(BASE, 'nodes.yaml'), 'utf8')},
    {name: 'objects.yaml', text: readFileSync(join(BASE, dir, 'objects.yaml'), 'utf8')},
  ])
  const cfg = kubeProxyConfigText(objects)
  const r = buildRenderInput(objects, {
    nodeName: opts.node ?? 'node-a',
    version: parseKubeProxyVersion(opts.version ?? 'v1.35')!,
    ...(cfg ? {kubeProxyConfig: parseYaml(cfg) as Record<string, unknown>} : {}),
    facts: {nfacct: false, ...opts.facts},
  })
  return generateIptablesRestore(r.input)
}

/** iptables-save text → table → chain → [declaration, rules], ignoring comments and chain order. */
function parseSaved(text: string): Map<string, Map<string, {decl: string; rules: string[]}>> {
  const out = new Map<string, Map<string, {decl: string; rules: string[]}>>()
  let table: Map<string, {decl: string; rules: string[]}> | undefined
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line === 'COMMIT') continue
    if (line.startsWith('*')) out.set(line.slice(1), (table = new Map()))
    else if (line.startsWith(':')) {
      const name = line.slice(1).split(' ')[0]!
      table!.set(name, {decl: line.replace(/\[\d+:\d+\]$/, '[0:0]'), rules: []})
    } else if (line.startsWith('-A ')) table!.get(line.split(' ')[1]!)!.rules.push(line)
  }
  return out
}

const IPV4_CASES = [
  'clusterip', 'nodeport', 'externalips', 'loadbalancer', 'etp-local', 'itp-local', 'session-affinity', 'no-endpoints', 'terminating',
  'topology-hints', 'masquerade-all', 'detect-local-node-cidr', 'detect-local-bridge', 'detect-local-interface-prefix', 'detect-local-none',
  'masquerade-bit', 'nodeport-addresses', 'nodeport-addresses-primary', 'localhost-nodeports-off', 'versions', 'upstream-overall', 'upstream-bad-ips',
]

for (const backend of ['nft', 'legacy'] as const) {
  const tool = (base: 'iptables' | 'ip6tables', verb: '' | '-restore' | '-save'): string => (backend === 'legacy' ? `${base}-legacy${verb}` : `${base}${verb}`)
  describe(`real ${backend} iptables`, {skip: skip ?? (spawnSync('sh', ['-c', `command -v ${tool('iptables', '-restore')}`]).status !== 0 && `${tool('iptables', '-restore')} is not installed`)}, () => {
    it('iptables-restore accepts every IPv4 case, and iptables-save prints what serializeSave predicts', () => {
      for (const dir of IPV4_CASES) {
        for (const version of dir === 'versions' ? ['v1.28', 'v1.30', 'v1.35'] : ['v1.35']) {
          const out = render(dir, {version})
          const ns = newNamespace()
          try {
            const r = inNs(ns, tool('iptables', '-restore'), ['--noflush', '--counters'], out.text)
            assert.equal(r.status, 0, `${dir} ${version}: ${r.stderr}`)
            for (const c of ensuredChains()) inNs(ns, tool('iptables', ''), ['-t', c.table, '-N', c.chain])
            for (const j of builtinJumps()) {
              const ins = inNs(ns, tool('iptables', ''), ['-t', j.table, j.op, j.chain, ...j.args])
              assert.equal(ins.status, 0, `${j.chain}: ${ins.stderr}`)
            }
            const saved = inNs(ns, tool('iptables', '-save'), [])
            assert.equal(saved.status, 0, saved.stderr)
            assert.deepEqual(parseSaved(saved.stdout), parseSaved(serializeSave(out.ruleset)), `${dir} ${version}`)
          } finally {
            deleteNamespace(ns)
          }
        }
      }
    })

    it('ip6tables-restore accepts the IPv6 cases, and ip6tables-save matches serializeSave', () => {
      for (const [node, facts] of [['node-a', {family: 'ipv6' as const}], ['node-v6', {}]] as const) {
        const out = render('ipv6', {node, facts})
        const ns = newNamespace()
        try {
          const r = inNs(ns, tool('ip6tables', '-restore'), ['--noflush', '--counters'], out.text)
          assert.equal(r.status, 0, r.stderr)
          for (const c of ensuredChains()) inNs(ns, tool('ip6tables', ''), ['-t', c.table, '-N', c.chain])
          for (const j of builtinJumps()) assert.equal(inNs(ns, tool('ip6tables', ''), ['-t', j.table, j.op, j.chain, ...j.args]).status, 0)
          const saved = inNs(ns, tool('ip6tables', '-save'), [])
          assert.deepEqual(parseSaved(saved.stdout), parseSaved(serializeSave(out.ruleset)), node)
        } finally {
          deleteNamespace(ns)
        }
      }
    })

    it('a second sync with stale chains flushes and deletes them', () => {
      const ns = newNamespace()
      try {
        const first = render('upstream-overall')
        assert.equal(inNs(ns, tool('iptables', '-restore'), ['--noflush', '--counters'], first.text).status, 0)
        // The next sync (no services left) sees the first sync's chains in iptables-save -t nat.
        const existing = first.ruleset.tables[1].chains
        const withStale = generateIptablesRestore({services: [], endpointSlices: [], options: {...renderOptions(), existingNatChains: existing}})
        assert.ok(withStale.ruleset.tables[1].deletedChains.length > 10)
        const r = inNs(ns, tool('iptables', '-restore'), ['--noflush', '--counters'], withStale.text)
        assert.equal(r.status, 0, r.stderr)
        const nat = parseSaved(inNs(ns, tool('iptables', '-save'), ['-t', 'nat']).stdout).get('nat')!
        assert.deepEqual([...nat.keys()].filter((c) => /^KUBE-(SVC|SEP|EXT|FW|SVL)-/.test(c)), [])
      } finally {
        deleteNamespace(ns)
      }
    })
  })
}

function renderOptions() {
  const objects = loadObjects([{name: 'nodes.yaml', text: readFileSync(join(BASE, 'nodes.yaml'), 'utf8')}])
  return buildRenderInput(objects, {nodeName: 'node-a', version: parseKubeProxyVersion('v1.35')!, kubeProxyConfig: {clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false}}).input.options
}
