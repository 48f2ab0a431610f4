// A "node" for fix-kubelet tests: a network namespace running its own sshd, a kubelet config tree in a temp dir,
// and on the SSH session's PATH a systemctl test double whose `restart kubelet` (re)starts a fake kubelet: a
// small HTTP server on the namespace's 127.0.0.1:10248 that, like the real kubelet, refuses to start when its
// config file matches a pattern the test sets (e.g. a cgroup driver the "runtime" does not use).
// Everything lives under the temp dir and the namespace; nothing on the host is touched.
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {KUBEADM_KUBELET_AUTH} from '../../support/kubeadm-kubelet.js'
import {createNetns, makeTempDir, makeUserKey, type Netns, type Sshd, startSshd, targetFor} from '../../support/sshd.js'

/** A kubeadm-written config.yaml (its auth blocks from test/support) with comments; clusterDNS is stale (10.96.0.99). */
export const KUBEADM_CONFIG = `# Written by kubeadm join; node-specific edits belong in a drop-in.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
${KUBEADM_KUBELET_AUTH}cgroupDriver: systemd # must match containerd's SystemdCgroup
# DNS for pods: the kube-dns Service
clusterDNS:
- 10.96.0.99
clusterDomain: cluster.local
healthzBindAddress: 127.0.0.1
healthzPort: 10248
memorySwap: {}
rotateCertificates: true
staticPodPath: /etc/kubernetes/manifests
`

export interface KubeletNode {
  name: string
  dir: string
  netns: Netns
  sshd: Sshd
  /** The kubelet's --config file. */
  configPath: string
  /** The kubelet's --config-dir, when the unit has one. */
  configDir?: string
  /** Fails the next `systemctl restart kubelet` (exit 1, like a unit whose start job failed). */
  failNextRestart(): void
  /** The fake kubelet exits at start when its config file matches this regular expression. */
  refuseConfig(pattern: string): void
  restarts(): number
  /** Whether the fake kubelet answers /healthz now. */
  healthy(): boolean
  sshConfigLines(): string
  knownHostsLine(): string
  identityFile: string
  connect(): Promise<SshTransport>
  stop(): Promise<void>
}

const FAKE_KUBELET = `// Fake kubelet: serves /healthz on 127.0.0.1:10248 unless its config matches the refuse pattern.
import http from 'node:http'
import {existsSync, readFileSync} from 'node:fs'
const [config, refuseFile] = process.argv.slice(2)
const text = readFileSync(config, 'utf8')
if (existsSync(refuseFile) && new RegExp(readFileSync(refuseFile, 'utf8').trim()).test(text)) {
  console.error('E run.go:72] "command failed" err="failed to run Kubelet: misconfiguration: kubelet cgroup driver: \\\\"cgroupfs\\\\" is different from docker cgroup driver: \\\\"systemd\\\\""')
  process.exit(1)
}
http.createServer((req, res) => res.end(req.url === '/healthz' ? 'ok' : 'not found')).listen(10248, '127.0.0.1')
`

function systemctl(state: string, config: string): string {
  return `#!/bin/sh
# systemctl test double (fix-kubelet tests): cat / restart / is-active for the kubelet unit only.
S='${state}'
case "$1" in
  cat) cat "$S/kubelet.service" ;;
  restart)
    echo restart >> "$S/restarts.log"
    if [ -f "$S/fail-next-restart" ]; then
      rm -f "$S/fail-next-restart"
      echo 'Job for kubelet.service failed because the control process exited with error code.' >&2
      exit 1
    fi
    if [ -f "$S/kubelet.pid" ]; then
      p=$(cat "$S/kubelet.pid"); kill "$p" 2>/dev/null
      while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
    fi
    '${process.execPath}' "$S/fake-kubelet.mjs" '${config}' "$S/refuse" </dev/null >>"$S/kubelet.log" 2>&1 &
    echo $! > "$S/kubelet.pid"
    ;;
  is-active)
    if [ -f "$S/kubelet.pid" ] && kill -0 "$(cat "$S/kubelet.pid")" 2>/dev/null; then echo active; else echo inactive; exit 3; fi ;;
  *) echo "systemctl test double: unsupported: $*" >&2; exit 1 ;;
esac
`
}

export interface KubeletNodeOptions {
  name?: string
  /** config.yaml content. */
  config: string
  /** Drop-in files by name; when given, the unit passes --config-dir. */
  dropIns?: Record<string, string>
  /** Extra kubelet flags in the unit's ExecStart. */
  extraFlags?: string
  /** Mode and owner of the config files. */
  mode?: number
  uid?: number
  gid?: number
}

export async function startKubeletNode(options: KubeletNodeOptions): Promise<KubeletNode> {
  const name = options.name ?? 'node-a'
  const dir = makeTempDir('nd-fix-kubelet-')
  chmodSync(dir, 0o711)
  const state = join(dir, 'state')
  const bin = join(dir, 'bin')
  const kubeletDir = join(dir, 'var', 'lib', 'kubelet')
  for (const d of [state, bin, kubeletDir]) mkdirSync(d, {recursive: true})
  const configPath = join(kubeletDir, 'config.yaml')
  const place = (path: string, text: string) => {
    writeFileSync(path, text)
    chmodSync(path, options.mode ?? 0o640)
    chownSync(path, options.uid ?? 1234, options.gid ?? 2345)
  }
  place(configPath, options.config)
  let configDir: string | undefined
  if (options.dropIns) {
    configDir = join(dir, 'etc', 'kubernetes', 'kubelet.conf.d')
    mkdirSync(configDir, {recursive: true})
    for (const [f, text] of Object.entries(options.dropIns)) place(join(configDir, f), text)
  }
  const flags = [`--config=${configPath}`, ...(configDir ? [`--config-dir=${configDir}`] : []), ...(options.extraFlags ? [options.extraFlags] : [])].join(' ')
  writeFileSync(
    join(state, 'kubelet.service'),
    `# /usr/lib/systemd/system/kubelet.service\n[Unit]\nDescription=kubelet: The Kubernetes Node Agent\n\n[Service]\nExecStart=/usr/bin/kubelet --kubeconfig=/etc/kubernetes/kubelet.conf ${flags}\nRestart=always\n`,
  )
  writeFileSync(join(state, 'fake-kubelet.mjs'), FAKE_KUBELET)
  writeFileSync(join(bin, 'systemctl'), systemctl(state, configPath), {mode: 0o755})

  const key = makeUserKey(dir)
  const netns = createNetns()
  const path = `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`
  const sshd = await startSshd({
    authorizedKeys: [`environment="PATH=${path}" ${key.publicKey}`],
    extraConfig: 'PermitUserEnvironment PATH',
    netns: netns.name,
    listenAddress: netns.address,
  })
  const knownHosts = join(dir, 'known_hosts')
  writeFileSync(knownHosts, sshd.knownHostsLine())
  // The kubelet is running before the test starts.
  execFileSync('ip', ['netns', 'exec', netns.name, join(bin, 'systemctl'), 'restart', 'kubelet'], {stdio: 'ignore'})
  const healthy = () => spawnSync('ip', ['netns', 'exec', netns.name, 'curl', '-sS', '--max-time', '2', 'http://127.0.0.1:10248/healthz'], {encoding: 'utf8'}).stdout === 'ok'
  for (let i = 0; i < 100 && !healthy(); i++) await new Promise((r) => setTimeout(r, 50))

  const node: KubeletNode = {
    name,
    dir,
    netns,
    sshd,
    configPath,
    identityFile: key.privateKeyPath,
    failNextRestart: () => writeFileSync(join(state, 'fail-next-restart'), ''),
    refuseConfig: (pattern) => writeFileSync(join(state, 'refuse'), pattern),
    restarts: () => (existsSync(join(state, 'restarts.log')) ? readFileSync(join(state, 'restarts.log'), 'utf8').trim().split('\n').length : 0),
    healthy,
    sshConfigLines: () => `Host ${name}\n  HostName ${sshd.host}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n\n`,
    knownHostsLine: () => sshd.knownHostsLine(),
    connect: async () => {
      const t = new SshTransport(name, targetFor(sshd, key, knownHosts), {agentSocket: ''})
      await t.connect()
      return t
    },
    stop: async () => {
      const pidFile = join(state, 'kubelet.pid')
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8').trim()))
        } catch {
          // already gone
        }
      }
      await sshd.stop().catch(() => undefined)
      netns.remove()
      rmSync(dir, {recursive: true, force: true})
    },
  }
  if (configDir !== undefined) node.configDir = configDir
  return node
}
