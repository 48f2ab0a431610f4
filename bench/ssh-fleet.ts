// Fleet benchmark: the real `check --all` path over N private sshd "nodes" on loopback (one sshd process each, as
// test/support/sshd.ts starts them) and the test API server, against the floor: OpenSSH `ssh NODE true` to every
// node at the same concurrency (one handshake per node is the least any tool pays).
// "ours" runs the services the `check` command runs (collectLive: cluster read once + plan over SSH, then
// analyzeSnapshots and the JSON renderer) in this process; when dist/ is built, the CLI itself is timed too.
// Every simulated node runs its commands on this same machine, which a real fleet spreads over its nodes; so the
// benchmark also prints that work alone (the plan's script run locally for every node at the same concurrency)
// and a second floor: OpenSSH running the very same script, one session per node.
// Usage: node --import tsx bench/ssh-fleet.ts [nodes]   (env: NODES, CONCURRENCY, ROUNDS). Needs root and sshd.
import {execFile} from 'node:child_process'
import {existsSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import pLimit from 'p-limit'
import {analyzeSnapshots} from '../src/app/analyze.js'
import {CATALOG} from '../src/core/checks/registry.js'
import {batchScript} from '../src/core/collection/batch.js'
import {planFor} from '../src/core/collection/plan.js'
import {shellJoin} from '../src/core/collection/shell.js'
import type {KubeObject} from '../src/core/model/k8s.js'
import type {Report} from '../src/core/model/report.js'
import {collectLive} from '../src/app/live/collect.js'
import type {LiveFlags} from '../src/app/live/targets.js'
import {type ConnectFlags, environment} from '../src/transports/connect.js'
import {renderReport} from '../src/render/index.js'
import {type FakeApiServer, startFakeApiServer} from '../test/support/fake-apiserver.js'
import {endpointSlice, KUBE_PROXY_CONFIG, node, pod, service} from '../test/support/kube-objects.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, type UserKey} from '../test/support/sshd.js'

const NODES = Number(process.argv[2] ?? process.env.NODES ?? 50)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'bin', 'kubectl-node_doctor')

function line(name: string, value: number | string, unit = ''): void {
  console.log(`${name}: ${typeof value === 'number' ? (Number.isInteger(value) ? value : value.toFixed(2)) : value}${unit ? ` ${unit}` : ''}`)
}

const nodeName = (i: number) => `node-${String(i).padStart(2, '0')}`

/** Nodes (all at 127.0.0.1: the ssh config gives each its port), one kube-proxy pod per node, a few Services. */
function clusterObjects(count: number): KubeObject[] {
  const objs: KubeObject[] = []
  for (let i = 0; i < count; i++) {
    objs.push(node(nodeName(i), '127.0.0.1', `10.${Math.floor(i / 250) + 1}.${i % 250}.0/24`))
    objs.push(pod('kube-system', `kube-proxy-${i}`, nodeName(i), '127.0.0.1', {'k8s-app': 'kube-proxy'}, ['kube-proxy']))
  }
  objs.push(
    service('default', 'kubernetes', '172.30.0.1', 443, {}),
    service('shop', 'web', '172.30.1.1', 80, {app: 'web'}),
    endpointSlice('shop', 'web', [0, 1].map((i) => ({ip: `10.1.${i}.10`, nodeName: nodeName(i)})), 80),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'kube-proxy', namespace: 'kube-system', labels: {'k8s-app': 'kube-proxy'}},
      spec: {selector: {matchLabels: {'k8s-app': 'kube-proxy'}}, template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.1'}]}}},
      status: {desiredNumberScheduled: count, numberReady: count, updatedNumberScheduled: count},
    } as KubeObject,
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'kube-proxy', namespace: 'kube-system'}, data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
  )
  return objs
}

function openSshTrue(sshConfig: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('ssh', ['-F', sshConfig, '-o', 'BatchMode=yes', name, 'true'], {env: {...process.env, SSH_AUTH_SOCK: ''}}, (err, _out, stderr) =>
      err ? reject(new Error(`ssh ${name} true failed: ${stderr}`)) : resolve(),
    )
  })
}

/** OpenSSH running a script file on the node (fed on stdin to `sh -s`): one handshake, one session. */
function openSshScript(sshConfig: string, name: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', 'exec ssh -F "$1" -o BatchMode=yes "$2" sh -s <"$3" >/dev/null', 'sh', sshConfig, name, script], {env: {...process.env, SSH_AUTH_SOCK: ''}}, (err, _out, stderr) =>
      err ? reject(new Error(`ssh ${name} sh -s failed: ${stderr}`)) : resolve(),
    )
  })
}

/** The script run right here, no SSH: the node-side work of one simulated node. */
function localScript(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sh', [script], {maxBuffer: 256 * 1024 * 1024}, (err) => (err && typeof err.code !== 'number' ? reject(err) : resolve()))
  })
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
}

async function timed<T>(fn: () => Promise<T>): Promise<{ms: number; value: T}> {
  const t0 = performance.now()
  const value = await fn()
  return {ms: performance.now() - t0, value}
}

/** What `check` does, in process: collectLive (cluster once, nodes over SSH) → analyzeSnapshots → render. */
async function checkInProcess(names: string[], flags: LiveFlags & ConnectFlags): Promise<Report> {
  const live = await collectLive(names, flags, environment(flags))
  const report = analyzeSnapshots(live.cluster, live.nodes, {metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version: 'bench'}, command: 'check', context: live.access.context}})
  renderReport(report, 'json', {color: false, catalog: CATALOG})
  return report
}

/** The built CLI under /usr/bin/time: wall time and the child's peak RSS. */
function checkCli(args: string[], home: string): Promise<{ms: number; rssMiB: number; exitCode: number}> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    execFile('/usr/bin/time', ['-f', 'ND_MAXRSS_KB=%M', CLI, ...args], {env: {...process.env, HOME: home, SSH_AUTH_SOCK: ''}, maxBuffer: 256 * 1024 * 1024}, (err, _out, stderr) => {
      const m = /ND_MAXRSS_KB=(\d+)/.exec(stderr)
      if (!m) return reject(new Error(`CLI run failed: ${err?.message}\n${stderr}`))
      resolve({ms: performance.now() - t0, rssMiB: Number(m[1]) / 1024, exitCode: typeof err?.code === 'number' ? err.code : 0})
    })
  })
}

function assertComplete(report: Report, expected: number): void {
  const collected = report.nodes.filter((n) => n.status !== 'uncollected').length
  const connectErrors = report.collectionErrors.filter((e) => e.source === 'connect')
  if (collected !== expected || connectErrors.length > 0) {
    throw new Error(`only ${collected}/${expected} nodes collected: ${connectErrors.map((e) => `${e.node}: ${e.message}`).join('; ')}`)
  }
}

async function main(): Promise<void> {
  const skip = sshdSkipReason()
  if (skip) {
    console.error(`ssh-fleet: skipped: ${skip}`)
    return
  }
  const dir = makeTempDir('nd-bench-')
  const nodes: Sshd[] = []
  let api: FakeApiServer | undefined
  const cleanup = async () => {
    await Promise.allSettled(nodes.map((n) => n.stop()))
    await api?.close()
    rmSync(dir, {recursive: true, force: true})
  }
  const onSignal = () => void cleanup().then(() => process.exit(130))
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  try {
    mkdirSync(join(dir, '.ssh'), {mode: 0o700})
    const key: UserKey = makeUserKey(dir)
    const startLimit = pLimit(8)
    const setup = await timed(() => Promise.all(Array.from({length: NODES}, (_, i) => startLimit(async () => (nodes[i] = await startSshd({authorizedKeys: [key.publicKey], logLevel: 'VERBOSE'}))))))
    const knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, nodes.map((n) => n.knownHostsLine()).join(''))
    // One Host entry per node, read by both OpenSSH (the floor) and node-doctor (--ssh-config).
    const sshConfig = join(dir, 'ssh_config')
    writeFileSync(
      sshConfig,
      nodes.map((n, i) => `Host ${nodeName(i)}\n  HostName 127.0.0.1\n  Port ${n.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n`).join('\n'),
    )
    api = await startFakeApiServer({objects: clusterObjects(NODES)})
    process.env.SSH_AUTH_SOCK = ''
    const flags: LiveFlags & ConnectFlags = {
      kubeconfig: api.kubeconfigPath,
      'request-timeout': '0',
      via: 'ssh',
      concurrency: CONCURRENCY,
      timeout: '30s',
      'node-timeout': '5m',
      'address-type': 'InternalIP',
      'ssh-config': sshConfig,
      quiet: true,
    }
    const accepted = () => nodes.reduce((s, n) => s + n.count(/Accepted publickey/), 0)
    // sshd logs every session (exec) it starts at VERBOSE.
    const sessions = () => nodes.reduce((s, n) => s + n.count(/Starting session: command/), 0)
    // The plan as one script (what node-doctor sends, in one lane), for the work-alone figure and the second floor.
    const scriptPath = join(dir, 'plan.sh')
    writeFileSync(scriptPath, batchScript(planFor().map((p) => ({command: shellJoin(p.argv)})), {nonce: '0123456789abcdef', timeoutMs: 30_000}))
    // The same script with every command replaced by /bin/true: what merely starting that many processes costs.
    const noopPath = join(dir, 'noop.sh')
    writeFileSync(noopPath, batchScript(planFor().map(() => ({command: '/bin/true'})), {nonce: '0123456789abcdef', timeoutMs: 30_000}))

    // Warm-up (disk cache, sshd re-exec, module loading, JIT), not measured.
    await openSshTrue(sshConfig, nodeName(0))
    assertComplete(await checkInProcess([nodeName(0)], flags), 1)

    const floorOne = await timed(() => openSshTrue(sshConfig, nodeName(1)))
    const oursOne = await timed(() => checkInProcess([nodeName(1)], flags))
    assertComplete(oursOne.value, 1)

    const floorLimit = pLimit(CONCURRENCY)
    const floor = await timed(() => Promise.all(nodes.map((_, i) => floorLimit(() => openSshTrue(sshConfig, nodeName(i))))))

    const workLimit = pLimit(CONCURRENCY)
    const workAlone = await timed(() => Promise.all(nodes.map(() => workLimit(() => localScript(scriptPath)))))
    const noopLimit = pLimit(CONCURRENCY)
    const noopAlone = await timed(() => Promise.all(nodes.map(() => noopLimit(() => localScript(noopPath)))))

    // The comparison the target is about (issue #15: check --all within 1.2x of OpenSSH running the same commands,
    // one session per node, same concurrency), measured side by side: ROUNDS rounds of OpenSSH, ours in process and
    // the CLI one after the other, so load on the machine falls on all three alike; medians and per-round ratios.
    const withCli = existsSync(join(ROOT, 'dist', 'commands', 'check.js'))
    const sameFloors: number[] = []
    const fleets: number[] = []
    const clis: Array<{ms: number; rssMiB: number; exitCode: number}> = []
    let counted: {connections: number; execs: number; listNodes: number; cpuMs: number} | undefined
    for (let round = 0; round < ROUNDS; round++) {
      const sameLimit = pLimit(CONCURRENCY)
      sameFloors.push((await timed(() => Promise.all(nodes.map((_, i) => sameLimit(() => openSshScript(sshConfig, nodeName(i), scriptPath)))))).ms)

      const before = accepted()
      const sessionsBefore = sessions()
      api.resetRequests()
      const cpu0 = process.cpuUsage()
      const fleet = await timed(() => checkInProcess([], {...flags, all: true}))
      const cpu = process.cpuUsage(cpu0)
      assertComplete(fleet.value, NODES)
      fleets.push(fleet.ms)
      counted ??= {
        connections: accepted() - before,
        execs: sessions() - sessionsBefore,
        listNodes: api.requests.filter((r) => r.verb === 'list' && r.resource === 'nodes').length,
        cpuMs: (cpu.user + cpu.system) / 1000,
      }
      if (withCli) {
        clis.push(await checkCli(['check', '--all', '--concurrency', String(CONCURRENCY), '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '-o', 'json', '--quiet'], dir))
      }
      console.log(
        `round ${round + 1}: openssh_same_commands ${sameFloors[round]!.toFixed(0)} ms, check_all ${fleet.ms.toFixed(0)} ms (${(fleet.ms / sameFloors[round]!).toFixed(2)}x)` +
          (withCli ? `, cli ${clis[round]!.ms.toFixed(0)} ms (${(clis[round]!.ms / sameFloors[round]!).toFixed(2)}x)` : ''),
      )
    }
    const commandsPerNode = planFor().length
    const peakRss = process.resourceUsage().maxRSS / 1024
    const sameFloor = median(sameFloors)
    const fleetMs = median(fleets)

    line('nodes', NODES, 'count')
    line('concurrency', CONCURRENCY, 'count')
    line('rounds', ROUNDS, 'count')
    line('commands_per_node', commandsPerNode, 'count')
    line('sshd_setup', setup.ms, 'ms')
    line('floor_openssh_true_total', floor.ms, 'ms')
    line('floor_openssh_true_one_node', floorOne.ms, 'ms')
    line('node_commands_alone_total', workAlone.ms, 'ms')
    line('node_noop_processes_alone_total', noopAlone.ms, 'ms')
    line('floor_openssh_same_commands_total (median)', sameFloor, 'ms')
    line('check_all_total (median)', fleetMs, 'ms')
    line('check_one_node', oursOne.ms, 'ms')
    line('check_all_cpu', counted!.cpuMs, 'ms')
    line('ssh_connections_per_node', counted!.connections / NODES, 'count')
    line('ssh_sessions_per_node', counted!.execs / NODES, 'count')
    line('cluster_node_lists', counted!.listNodes, 'count')
    line('ratio_check_all_to_floor', fleetMs / floor.ms, 'x')
    line('ratio_check_all_to_same_commands_floor', fleetMs / sameFloor, 'x')
    line('peak_rss', peakRss, 'MiB')
    if (withCli) {
      const cliMs = median(clis.map((c) => c.ms))
      line('cli_check_all_total (median)', cliMs, 'ms')
      line('cli_peak_rss', Math.max(...clis.map((c) => c.rssMiB)), 'MiB')
      line('cli_exit_code', clis[0]!.exitCode, 'code')
      line('ratio_cli_to_floor', cliMs / floor.ms, 'x')
      line('ratio_cli_to_same_commands_floor', cliMs / sameFloor, 'x')
      const ratio = cliMs / sameFloor
      console.log(`fleet ratio (CLI check --all / OpenSSH same commands, medians): ${ratio.toFixed(2)}x (target <= 1.2x): ${ratio <= 1.2 ? 'met' : 'NOT met'}`)
    } else {
      line('cli_check_all_total', 'skipped (run npm run build first)')
    }
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
    await cleanup()
  }
}

await main()
