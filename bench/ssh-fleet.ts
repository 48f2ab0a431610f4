// SSH fan-out benchmark: N private sshd "nodes" on loopback ports (one process each, as test/support/sshd.ts
// starts them), then (a) the floor: OpenSSH `ssh ... true` to every node, and (b) SshTransport: one connection
// per node running COMMANDS small commands as channels. Both with CONCURRENCY nodes at a time.
// Usage: node --import tsx bench/ssh-fleet.ts [nodes]   (env: NODES, CONCURRENCY, COMMANDS). Needs root and sshd.
import {execFile} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import pLimit from 'p-limit'
import {SshTransport} from '../src/transports/ssh/ssh.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../test/support/sshd.js'

const NODES = Number(process.argv[2] ?? process.env.NODES ?? 50)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16)
const COMMANDS = Number(process.env.COMMANDS ?? 20)

/** Small, node-doctor-like reads; cycled to COMMANDS entries. */
const COMMAND_POOL = [
  'uname -r',
  'cat /proc/loadavg',
  'cat /proc/sys/net/ipv4/ip_forward',
  'cat /proc/sys/net/ipv4/conf/all/route_localnet',
  'id -u',
  'hostname',
  'cat /proc/uptime',
  'ls /proc/sys/net/ipv4 | wc -l',
  'cat /etc/os-release',
  'echo $HOME',
  'cat /proc/sys/kernel/osrelease',
  'head -c 4096 /proc/self/status',
  'date +%s',
  'cat /proc/sys/net/core/somaxconn',
  'test -e /var/lib/kubelet/config.yaml; echo $?',
  'printf "%s\\n" a b c',
  'cat /proc/meminfo | head -3',
  'nproc',
  'true',
  'cat /proc/sys/net/ipv4/ip_local_port_range',
]
const commands = Array.from({length: COMMANDS}, (_, i) => COMMAND_POOL[i % COMMAND_POOL.length]!)

function line(name: string, value: number | string, unit = ''): void {
  console.log(`${name}: ${typeof value === 'number' ? (Number.isInteger(value) ? value : value.toFixed(2)) : value}${unit ? ` ${unit}` : ''}`)
}

function openSshTrue(node: Sshd, key: UserKey, knownHosts: string): Promise<void> {
  const args = [
    '-F', '/dev/null',
    '-o', 'BatchMode=yes',
    '-o', `UserKnownHostsFile=${knownHosts}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', 'StrictHostKeyChecking=yes',
    '-o', 'IdentitiesOnly=yes',
    '-i', key.privateKeyPath,
    '-p', String(node.port),
    `root@${node.host}`,
    'true',
  ]
  return new Promise((resolve, reject) => {
    execFile('ssh', args, {env: {...process.env, SSH_AUTH_SOCK: ''}}, (err, _out, stderr) => (err ? reject(new Error(`ssh to ${node.port} failed: ${stderr}`)) : resolve()))
  })
}

async function ours(node: Sshd, key: UserKey, knownHosts: string): Promise<void> {
  const t = new SshTransport(`node-${node.port}`, targetFor(node, key, knownHosts), {agentSocket: ''})
  try {
    const results = await Promise.all(commands.map((c) => t.exec(c, {timeoutMs: 30_000})))
    const bad = results.find((r) => r.exitCode !== 0)
    if (bad) throw new Error(`a command failed on ${node.port}: ${bad.stderr}`)
  } finally {
    await t.close()
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

async function fleet(nodes: Sshd[], run: (n: Sshd) => Promise<void>): Promise<number> {
  const limit = pLimit(CONCURRENCY)
  return timed(() => Promise.all(nodes.map((n) => limit(() => run(n)))))
}

async function main(): Promise<void> {
  const skip = sshdSkipReason()
  if (skip) {
    console.error(`ssh-fleet: skipped: ${skip}`)
    return
  }
  const dir = makeTempDir('nd-bench-')
  const nodes: Sshd[] = []
  const cleanup = async () => {
    await Promise.allSettled(nodes.map((n) => n.stop()))
    rmSync(dir, {recursive: true, force: true})
  }
  const onSignal = () => void cleanup().then(() => process.exit(130))
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  try {
    const key = makeUserKey(dir)
    const startLimit = pLimit(8)
    const setup = await timed(() => Promise.all(Array.from({length: NODES}, () => startLimit(async () => nodes.push(await startSshd({authorizedKeys: [key.publicKey], logLevel: 'INFO'}))))))
    const knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, nodes.map((n) => n.knownHostsLine()).join(''))

    // Warm-up (disk cache, first sshd re-exec, module loading), not measured.
    await openSshTrue(nodes[0]!, key, knownHosts)
    await ours(nodes[0]!, key, knownHosts)

    const floorOne = await timed(() => openSshTrue(nodes[1 % nodes.length]!, key, knownHosts))
    const oursOne = await timed(() => ours(nodes[1 % nodes.length]!, key, knownHosts))
    const floorTotal = await fleet(nodes, (n) => openSshTrue(n, key, knownHosts))
    const oursTotal = await fleet(nodes, (n) => ours(n, key, knownHosts))

    line('nodes', NODES, 'count')
    line('concurrency', CONCURRENCY, 'count')
    line('commands_per_node', COMMANDS, 'count')
    line('sshd_setup', setup, 'ms')
    line('floor_openssh_true_total', floorTotal, 'ms')
    line('floor_openssh_true_one_node', floorOne, 'ms')
    line('ours_total', oursTotal, 'ms')
    line('ours_one_node', oursOne, 'ms')
    line('ours_per_command_amortized', oursTotal / (NODES * COMMANDS), 'ms')
    line('ratio_ours_to_floor', oursTotal / floorTotal, 'x')
    line('peak_rss', process.resourceUsage().maxRSS / 1024, 'MiB')
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
    await cleanup()
  }
}

await main()
