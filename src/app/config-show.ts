// `kubelet show` and `kube-proxy show`: their inputs from --from-file (repeatable), or live for a NODE — files and
// endpoints over the node transport plus what only the API has (/configz, the kube-proxy ConfigMap and pod) — then
// the view (src/app/kubelet-show.ts, src/app/kube-proxy-show.ts). Notes about what could not be read go to `note`.
import type {KubeletShowResult, KubeProxyShowResult} from '../core/model/component-settings.js'
import {UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import {showKubeProxy} from './kube-proxy-show.js'
import {showKubelet} from './kubelet-show.js'
import {ArtifactUnavailableError, readNodeArtifacts} from './live/node-artifact.js'
import type {LiveFlags} from './live/targets.js'
import {isKubeProxyPod} from './read-cluster.js'

type NamedText = {name: string; text: string}

interface ShowRequest {
  node?: string | undefined
  files: readonly string[]
  /** The minor version whose defaults apply (--kubelet-version / --kube-proxy-version). */
  version?: string | undefined
  note: (message: string) => void
  /** --strict: no pasted-input leniency for --from-file (a cut-off ConfigMap, a fragment without apiVersion/kind). */
  strict?: boolean | undefined
}

function fromFiles(files: readonly string[], env: Environment): NamedText[] {
  return files.map((name) => ({name: name === '-' ? '<stdin>' : name, text: env.readInput(name)}))
}

export async function kubeletShow(r: ShowRequest, flags: Partial<LiveFlags>, env: Environment): Promise<KubeletShowResult> {
  let texts: NamedText[]
  if (r.files.length > 0) texts = fromFiles(r.files, env)
  else if (r.node !== undefined) {
    // Live: the node's files over the transport, and the running config through the API's nodes/proxy.
    const live = await readNodeArtifacts(r.node, ['kubelet-config', 'kubelet-unit', 'kubeadm-flags'], flags, env)
    texts = live.texts
    for (const m of live.missing) if (!flags.quiet) r.note(`note: ${r.node}: ${m}`)
    try {
      texts.push({name: `${r.node}:/configz`, text: await live.client.getNodeConfigz(r.node)})
    } catch (err) {
      if (!flags.quiet) r.note(`note: ${r.node}: running config (/configz) not read: ${(err as Error).message}`)
    }
    if (texts.length === 0) throw new ArtifactUnavailableError(`nothing could be read from node ${r.node}`)
  } else {
    throw new UsageError('no input given', 'Give a NODE to read live, or pass --from-file FILE (repeatable), e.g. /var/lib/kubelet/config.yaml and `systemctl cat kubelet` output.')
  }
  return showKubelet(texts, {...(r.node === undefined ? {} : {node: r.node}), ...(r.version === undefined ? {} : {version: r.version}), ...(r.strict || r.files.length === 0 ? {strict: true} : {})})
}

export async function kubeProxyShow(r: ShowRequest, flags: Partial<LiveFlags>, env: Environment): Promise<KubeProxyShowResult> {
  let texts: NamedText[]
  if (r.files.length > 0) texts = fromFiles(r.files, env)
  else if (r.node !== undefined) {
    // Live: the ConfigMap and the node's kube-proxy pod from the API; the running mode and metrics from the node.
    const live = await readNodeArtifacts(r.node, ['proxy-mode', 'kube-proxy-metrics'], flags, env)
    for (const m of live.missing) if (!flags.quiet) r.note(`note: ${r.node}: ${m}`)
    texts = []
    for (const name of ['kube-proxy', 'kube-proxy-config']) {
      const cm = await live.client.getConfigMap('kube-system', name)
      if (cm) {
        texts.push({name: `configmaps/${name} -n kube-system`, text: JSON.stringify(cm)})
        break
      }
    }
    const pod = (await live.client.listPods({namespace: 'kube-system', nodeName: r.node})).find((p) => isKubeProxyPod(p))
    if (pod) texts.push({name: `pods/${pod.metadata.name} -n kube-system`, text: JSON.stringify(pod)})
    texts.push(...live.texts)
    if (texts.length === 0) throw new ArtifactUnavailableError(`no kube-proxy ConfigMap, pod or endpoint could be read for node ${r.node}`)
  } else {
    throw new UsageError('no input given', 'Give a NODE to read live, or pass --from-file FILE, e.g. the output of `kubectl get cm -n kube-system kube-proxy -o yaml`.')
  }
  return showKubeProxy(texts, {...(r.node === undefined ? {} : {node: r.node}), ...(r.version === undefined ? {} : {version: r.version}), ...(r.strict || r.files.length === 0 ? {strict: true} : {})})
}
