import {Args, Flags} from '@oclif/core'
import type {ProxyMode} from '../../app/proxy/service.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags, proxierFlags} from '../../cli/flags.js'

export default class ProxyRender extends BaseCommand {
  static override summary = 'Print the iptables rules kube-proxy would program on a node, computed offline from API objects.'
  static override description =
    'Regenerates what kube-proxy writes for a full sync: the exact iptables-restore input (--format restore), or the ' +
    'state iptables-save would then print, including the jumps from built-in chains (--format save). Services, ' +
    'EndpointSlices, the Node, the kube-proxy ConfigMap and DaemonSet are read from `kubectl get -o yaml|json` output. ' +
    'kube-proxy orders services randomly; here they are sorted by service-port name.'

  static override examples = [
    'kubectl get svc,endpointslices,nodes -A -o yaml > objs.yaml\nkubectl get cm,ds -n kube-system kube-proxy -o yaml > kp.yaml\n<%= config.bin %> proxy render --objects objs.yaml --objects kp.yaml --node worker-1',
    '<%= config.bin %> proxy render --objects objs.yaml --node worker-1 --kube-proxy-version v1.30 --ip-family ipv6 --format save',
  ]

  static override args = {node: Args.string({ignoreStdin: true, description: 'Node to render for live: objects from the API, runtime facts from the node (instead of --objects/--node).'})}

  static override flags = {
    ...proxierFlags,
    mode: Flags.string({summary: 'kube-proxy mode.', options: ['iptables', 'ipvs', 'nftables'], default: 'iptables'}),
    format: Flags.string({summary: 'restore: the exact iptables-restore input; save: the resulting iptables-save view.', options: ['restore', 'save'], default: 'restore'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ProxyRender)
    const [{renderProxy}, {environmentFor}] = await Promise.all([import('../../app/proxy/service.js'), import('../../transports/environment-for.js')])
    const io = {note: (m: string) => this.note(m), verbose: flags.verbose, quiet: flags.quiet}
    process.stdout.write(await renderProxy(flags.mode as ProxyMode, args.node, flags, await environmentFor(args.node, flags), io))
  }
}
