// Start-up: the median wall time of `--help`, `checks` and `--version` for the development build (bin/, dist/) and
// the release bundle (scripts/bundle.mjs), measured side by side in one run with `kubectl version --client` and
// `node -e 0`, alternating so load on the machine falls on all of them alike. Prints the ratio to kubectl
// (target: --help <= 3x). `--help` and `--version` are answered without oclif (src/fast-start.ts); the same
// commands with DEBUG set go through oclif (the fast path leaves DEBUG to it), which is what they cost before.
// Needs `npm run build` first; kubectl from PATH (skipped, said so, when absent).
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..')
const RUNS = Number(process.env.STARTUP_RUNS ?? 21)
const out = mkdtempSync(join(tmpdir(), 'nd-startup-'))
execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.mjs'), out], {stdio: 'ignore'})

const kubectl = spawnSync('sh', ['-c', 'command -v kubectl'], {encoding: 'utf8'}).stdout.trim() || undefined
// A DEBUG namespace that matches nothing: oclif answers, and prints nothing more.
const OCLIF = {DEBUG: 'node-doctor-startup-bench'}
const subjects: Array<{name: string; argv: string[]; env?: Record<string, string>}> = [
  {name: 'node -e 0', argv: [process.execPath, '-e', '0']},
  ...(kubectl ? [{name: 'kubectl version --client', argv: [kubectl, 'version', '--client']}] : []),
  {name: 'dev --help', argv: [join(ROOT, 'bin', 'kubectl-node_doctor'), '--help']},
  {name: 'dev --help via oclif', argv: [join(ROOT, 'bin', 'kubectl-node_doctor'), '--help'], env: OCLIF},
  {name: 'bundle --help', argv: [join(out, 'kubectl-node_doctor'), '--help']},
  {name: 'bundle --help via oclif', argv: [join(out, 'kubectl-node_doctor'), '--help'], env: OCLIF},
  {name: 'bundle --version', argv: [join(out, 'kubectl-node_doctor'), '--version']},
  {name: 'bundle --version via oclif', argv: [join(out, 'kubectl-node_doctor'), '--version'], env: OCLIF},
  {name: 'bundle checks', argv: [join(out, 'kubectl-node_doctor'), 'checks']},
  {name: 'bundle explain IPT-001', argv: [join(out, 'kubectl-node_doctor'), 'explain', 'IPT-001']},
]

const times = new Map<string, number[]>(subjects.map((s) => [s.name, []]))
for (let i = 0; i < RUNS; i++) {
  for (const s of subjects) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(s.argv[0]!, s.argv.slice(1), {stdio: 'ignore', env: {...process.env, NO_COLOR: '1', ...s.env}})
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (r.status !== 0) throw new Error(`${s.name} exited ${r.status}`)
    times.get(s.name)!.push(ms)
  }
}
rmSync(out, {recursive: true, force: true})

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const base = kubectl ? median(times.get('kubectl version --client')!) : undefined
console.log(`${RUNS} runs each, alternating; median wall time`)
for (const s of subjects) {
  const m = median(times.get(s.name)!)
  console.log(`  ${s.name.padEnd(28)} ${m.toFixed(0).padStart(5)} ms${base ? `  ${(m / base).toFixed(2)}x kubectl` : ''}`)
}
if (base) {
  const ratio = median(times.get('bundle --help')!) / base
  console.log(`start-up ratio (bundle --help / kubectl version --client): ${ratio.toFixed(2)}x (target <= 3x): ${ratio <= 3 ? 'met' : 'NOT met'}`)
} else {
  console.log('kubectl not on PATH: no ratio')
}
