import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags} from '../../cli/flags.js'
import {liveShowFlags} from '../../cli/node-artifact.js'
import {describeRender, proxierFlags, resolveProxierInput} from '../../cli/proxy-input.js'
import {checkProxierForm, liveProxier} from '../../cli/proxy-live.js'
import {renderIpvs} from '../../cli/proxy-ipvs.js'
import {renderNftables} from '../../cli/proxy-nft.js'
import {generateIptablesRestore} from '../../core/proxier/iptables/generate.js'
import {serializeSave} from '../../core/proxier/iptables/save.js'

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
    checkProxierForm(args.node, flags, '', undefined)
    if (flags.mode === 'ipvs') {
      process.stdout.write(await renderIpvs(args.node, flags, {note: (m) => this.note(m), verbose: flags.verbose, quiet: flags.quiet}))
      return
    }
    if (flags.mode === 'nftables') {
      process.stdout.write(await renderNftables(args.node, flags, {note: (m) => this.note(m), verbose: flags.verbose, quiet: flags.quiet}))
      return
    }
    const render = args.node !== undefined ? (await liveProxier(args.node, flags)).render : resolveProxierInput(flags)
    if (flags.verbose) this.note(describeRender(render))
    if (!flags.quiet) for (const n of render.notes) this.note(`note: ${n}`)
    const out = generateIptablesRestore(render.input)
    process.stdout.write(flags.format === 'save' ? serializeSave(out.ruleset) : out.text)
  }
}
