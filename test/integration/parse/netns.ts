// A throwaway network namespace shaped like a Calico node, for running the real `ip`, `route` and `nft`.
// IP plan: node eth0 10.0.0.5/24 (gateway .1), this node's block 10.244.120.64/26, remote nodes 10.0.1.6/.7,
// VXLAN VTEPs 10.244.7.0 and 10.244.9.0, services 10.96.0.0/12. The kernel here has no ipip or dummy links, so
// tunl0 is a veth stand-in and kube-ipvs0 an ifb; `onlink` routes work on any device.
import {execFileSync, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'

/** Why real-tool tests cannot run here, or undefined when they can (root, ip netns, nft). */
export function realToolsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to create network namespaces'
  for (const tool of ['ip', 'nft', 'route']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `\`${tool}\` is not installed`
  }
  return undefined
}

export class Netns {
  readonly name = `nd-${randomBytes(4).toString('hex')}`
  readonly pod = `${this.name}-pod`

  create(): void {
    execFileSync('ip', ['netns', 'add', this.name])
    execFileSync('ip', ['netns', 'add', this.pod])
  }

  destroy(): void {
    spawnSync('ip', ['netns', 'del', this.pod])
    spawnSync('ip', ['netns', 'del', this.name])
  }

  /** Runs a command inside the namespace and returns stdout. */
  exec(cmd: string, args: string[], input?: string): string {
    return execFileSync('ip', ['netns', 'exec', this.name, cmd, ...args], {encoding: 'utf8', ...(input === undefined ? {} : {input})})
  }

  ip(...args: string[]): string {
    return execFileSync('ip', ['-n', this.name, ...args], {encoding: 'utf8'})
  }

  /** Links, addresses and routes of a Calico node with IPIP, VXLAN, BGP (ECMP) and workload routes. */
  setupCalicoNode(): void {
    const ip = (...a: string[]): string => this.ip(...a)
    // No IPv6 duplicate address detection: a `tentative` flag would differ between two listings.
    this.exec('sysctl', ['-q', '-w', 'net.ipv6.conf.default.accept_dad=0', 'net.ipv6.conf.all.accept_dad=0'])
    ip('link', 'set', 'lo', 'up')
    ip('link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-peer')
    ip('link', 'set', 'eth0', 'up')
    ip('link', 'set', 'eth0-peer', 'up')
    ip('addr', 'add', '10.0.0.5/24', 'dev', 'eth0')
    ip('-6', 'addr', 'add', '2001:db8::5/64', 'dev', 'eth0', 'nodad')
    ip('link', 'add', 'tunl0', 'type', 'veth', 'peer', 'name', 'tunl0-peer')
    ip('link', 'set', 'tunl0', 'mtu', '1440', 'up')
    ip('link', 'set', 'tunl0-peer', 'up')
    ip('addr', 'add', '10.244.120.64/32', 'dev', 'tunl0')
    ip('link', 'add', 'vxlan.calico', 'type', 'vxlan', 'id', '4096', 'dstport', '4789', 'dev', 'eth0')
    ip('link', 'set', 'vxlan.calico', 'mtu', '1450', 'up')
    ip('addr', 'add', '10.244.120.65/32', 'dev', 'vxlan.calico')
    ip('link', 'add', 'kube-ipvs0', 'type', 'ifb')
    ip('link', 'set', 'kube-ipvs0', 'up')
    ip('addr', 'add', '10.96.0.1/32', 'dev', 'kube-ipvs0')
    ip('addr', 'add', '10.96.0.10/32', 'dev', 'kube-ipvs0')
    // Pod veths: the peer lives in the "pod" namespace, as with a real CNI.
    ip('link', 'add', 'cali1234567890a', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', this.pod)
    ip('link', 'set', 'cali1234567890a', 'up')
    execFileSync('ip', ['-n', this.pod, 'link', 'set', 'eth0', 'up'])
    ip('link', 'add', 'cali0fedcba9876', 'type', 'veth', 'peer', 'name', 'eth1', 'netns', this.pod)
    ip('link', 'set', 'cali0fedcba9876', 'up') // peer left down: the route shows `linkdown`
    const route = (...a: string[]): string => ip('route', 'add', ...a)
    route('default', 'via', '10.0.0.1', 'dev', 'eth0', 'proto', 'dhcp', 'src', '10.0.0.5', 'metric', '100')
    route('blackhole', '10.244.120.64/26', 'proto', 'bird')
    route('10.244.120.66', 'dev', 'cali1234567890a', 'scope', 'link')
    route('10.244.120.67', 'dev', 'cali0fedcba9876', 'scope', 'link')
    route('10.244.5.0/26', 'via', '10.0.1.6', 'dev', 'tunl0', 'proto', 'bird', 'onlink')
    route('10.244.6.0/26', 'via', '10.0.1.7', 'dev', 'tunl0', 'proto', '80', 'onlink')
    route('10.244.6.130/32', 'via', '10.0.1.7', 'dev', 'tunl0', 'proto', 'bird', 'onlink')
    route('10.244.7.0/26', 'via', '10.244.7.0', 'dev', 'vxlan.calico', 'onlink')
    route('10.244.7.0', 'dev', 'vxlan.calico', 'scope', 'link')
    route('10.244.9.0/26', 'via', '10.244.9.0', 'dev', 'vxlan.calico', 'onlink', 'mtu', '1410')
    route('unreachable', '10.99.0.0/16')
    route('prohibit', '10.98.0.0/16', 'proto', 'static')
    route('10.244.8.0/26', 'proto', 'bird', 'nexthop', 'via', '10.0.0.7', 'dev', 'eth0', 'weight', '1', 'nexthop', 'via', '10.0.0.8', 'dev', 'eth0', 'weight', '2')
    route('192.168.50.0/24', 'via', '10.0.0.1', 'dev', 'eth0', 'proto', 'static', 'metric', '50', 'table', '100')
    route('throw', '172.16.0.0/12', 'table', '100')
    ip('-6', 'route', 'add', 'blackhole', 'fd00:10:244:1::/122', 'proto', 'bird')
    ip('-6', 'route', 'add', 'default', 'via', '2001:db8::1', 'dev', 'eth0', 'proto', 'static', 'metric', '1024')
    ip('-6', 'route', 'add', 'unreachable', 'fd00:dead::/64')
  }

  /** Loads an nft script (`nft -f -`). */
  nftLoad(script: string): void {
    this.exec('nft', ['-f', '-'], script)
  }
}
