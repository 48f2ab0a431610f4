// `npm run bench`: runs every benchmark in its own process (so each peak RSS is its own) and prints its figures.
// BENCH=name[,name] runs a subset, e.g. BENCH=proxier-diff npm run bench.
import {spawnSync} from 'node:child_process'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const BENCHES: Array<{name: string; what: string; needsRoot?: boolean}> = [
  {name: 'startup', what: 'start-up: --help/--version/checks of the build and the release bundle vs kubectl version --client (target --help <= 3x)'},
  {name: 'iptables-parse', what: 'parse a 10,000 Services x 10 endpoints iptables-save (target >= 60 MB/s, <= 600 MB)'},
  {name: 'proxier-render', what: 'render kube-proxy rules for 10,000 Services x 10 endpoints'},
  {name: 'proxier-diff', what: 'render + diff against a same-size dump (target <= 3 s, <= 1 GiB)'},
  {name: 'proxier-nft', what: 'nftables mode: render + diff for 10,000 Services x 10 endpoints against a same-size listing'},
  {name: 'proxier-ipvs', what: 'IPVS mode: render + diff (ipvsadm, ipsets, kube-ipvs0, iptables) for 10,000 Services x 10 endpoints'},
  {name: 'fleet-merge', what: '1,000 node snapshots: analyze + group + render (target < 5 s, < 1 GiB)'},
  {name: 'agent-scale', what: 'check --in-cluster, CLI side, against the test API server with 1,000 and 5,000 fake nodes: API requests per node, wall time'},
  {name: 'render-layout', what: 'table layout: a 55 KB rule wrapped, 20,000 rows, the wrapped rule as one cell (target well under 1 s each)'},
  {name: 'trace', what: 'trace on a ~240-line iptables-save: the trace, the table render share (target < 10 %) and the built CLI end to end (target < 1 s)'},
  {name: 'ssh-fleet', what: '50 sshd nodes, concurrency 16: check --all vs OpenSSH running the same commands, side by side (target <= 1.2x), and vs the `ssh true` floor', needsRoot: true},
]

const here = dirname(fileURLToPath(import.meta.url))
const only = process.env.BENCH?.split(',').filter(Boolean)
let failed = 0
for (const b of BENCHES) {
  if (only && !only.includes(b.name)) continue
  console.log(`\n== ${b.name}: ${b.what}`)
  if (b.needsRoot && process.getuid?.() !== 0) {
    console.log('skipped: needs root (sshd in network namespaces)')
    continue
  }
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${b.name}.ts`)], {stdio: 'inherit'})
  if (r.status !== 0) {
    failed++
    console.log(`${b.name}: exited with ${r.status ?? r.signal}`)
  }
}
process.exitCode = failed > 0 ? 1 : 0
