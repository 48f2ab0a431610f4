// The objects `check --in-cluster` creates, as a pure function of the run: a Namespace of its own (so one DELETE
// removes everything, and cleanup finds leftovers by label), a ServiceAccount without a token, and the agent
// DaemonSet. No Role, ClusterRole or binding: the agent never talks to the API (the CLI reads the cluster once and
// reads each agent's result from its pod log).
import {stringify} from 'yaml'
import type {Distribution} from '../layout/known-layouts.js'
import type {KubeObject} from '../model/k8s.js'
import {COMPONENT_LABEL, MANAGED_BY_LABEL, MANAGED_BY_VALUE, RUN_LABEL} from '../model/managed-objects.js'
import type {Area} from '../model/report.js'
import {agentPlan, type AgentPrivileges} from './privileges.js'

// The labels the debug pods carry too (one definition in core/model).
export {COMPONENT_LABEL, MANAGED_BY_LABEL, MANAGED_BY_VALUE, RUN_LABEL}
export const COMPONENT_AGENT = 'agent'
/** Every namespace an agent run ever created (what `cleanup` deletes). */
export const AGENT_NAMESPACE_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${COMPONENT_LABEL}=${COMPONENT_AGENT}`
export const AGENT_DAEMONSET = 'node-doctor-agent'
export const AGENT_SERVICE_ACCOUNT = 'node-doctor-agent'
export const AGENT_CONTAINER = 'agent'
/** On the DaemonSet of a run: the target nodes' layouts its host mounts are for (core/agent/layout-scope.ts). */
export const MOUNTS_FOR_LAYOUTS_ANNOTATION = 'node-doctor.io/mounts-for-layouts'
/** emptyDir where the agent drops its "done" file; the readiness probe looks for it. */
export const AGENT_STATE_DIR = '/run/node-doctor'
export const AGENT_DONE_FILE = `${AGENT_STATE_DIR}/done`
/** The published image (Dockerfile at the repository root); the tag is the plugin's version. */
export const AGENT_IMAGE_REPOSITORY = 'ghcr.io/node-doctor/kubectl-node-doctor'

export function defaultAgentImage(version: string): string {
  return `${AGENT_IMAGE_REPOSITORY}:${version}`
}

/** `node-doctor-<run>`: one namespace per run. */
export function agentNamespace(runId: string): string {
  return `node-doctor-${runId}`
}

export function agentPodSelector(runId: string): string {
  return `${COMPONENT_LABEL}=${COMPONENT_AGENT},${RUN_LABEL}=${runId}`
}

export interface AgentManifestOptions {
  runId: string
  image: string
  /** Areas the agent collects for (all when absent or empty). */
  areas?: readonly Area[]
  /** Only these nodes (nodeAffinity on metadata.name); absent: every node. */
  nodeNames?: readonly string[]
  /** Per-command timeout handed to the agent, in seconds. */
  commandTimeoutSeconds: number
  /**
   * The target nodes' layouts (core/agent/layout-scope.ts): the directories only other layouts have are not mounted.
   * Absent, or with `unknown` among them: every known layout's directories (what `agent manifests` and deploy/ show).
   */
  layouts?: readonly Distribution[]
}

export interface AgentManifests {
  namespace: string
  objects: KubeObject[]
  privileges: AgentPrivileges
}

/**
 * The Namespace, ServiceAccount and DaemonSet, in creation order. Pod Security is `privileged` only when the
 * selected areas need a host namespace, a host mount or a capability outside `baseline`, else `baseline`.
 */
export function agentManifests(o: AgentManifestOptions): AgentManifests {
  const {privileges} = agentPlan(o.areas, o.layouts)
  const namespace = agentNamespace(o.runId)
  const labels = {[MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [COMPONENT_LABEL]: COMPONENT_AGENT, [RUN_LABEL]: o.runId}
  const privileged = privileges.hostNetwork || privileges.hostPID || privileges.mounts.length > 0 || privileges.capabilities.length > 0
  const level = privileged ? 'privileged' : 'baseline'
  const areas = o.areas && o.areas.length > 0 ? [...o.areas] : undefined

  const ns: KubeObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {name: namespace, labels: {...labels, 'pod-security.kubernetes.io/enforce': level, 'pod-security.kubernetes.io/warn': level}},
  }
  const sa = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {name: AGENT_SERVICE_ACCOUNT, namespace, labels},
    automountServiceAccountToken: false,
  }

  const args = ['agent', 'collect', '--node', '$(NODE_NAME)', '--timeout', `${o.commandTimeoutSeconds}s`, '--hold', '--ready-file', AGENT_DONE_FILE]
  if (areas) args.push('--only', areas.join(','))
  const volumeMounts: Array<Record<string, unknown>> = [
    {name: 'state', mountPath: AGENT_STATE_DIR},
    {name: 'tmp', mountPath: '/tmp'},
    ...privileges.mounts.map((m) => ({name: m.name, mountPath: m.path, readOnly: true})),
  ]
  const volumes: Array<Record<string, unknown>> = [
    {name: 'state', emptyDir: {medium: 'Memory', sizeLimit: '1Mi'}},
    {name: 'tmp', emptyDir: {sizeLimit: '64Mi'}},
    ...privileges.mounts.map((m) => ({name: m.name, hostPath: {path: m.path, type: m.type}})),
  ]
  const podSpec: Record<string, unknown> = {
    serviceAccountName: AGENT_SERVICE_ACCOUNT,
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    ...(privileges.hostNetwork ? {hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet'} : {}),
    ...(privileges.hostPID ? {hostPID: true} : {}),
    terminationGracePeriodSeconds: 5,
    tolerations: [{operator: 'Exists'}],
    ...(o.nodeNames
      ? {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{matchFields: [{key: 'metadata.name', operator: 'In', values: [...o.nodeNames].sort()}]}],
              },
            },
          },
        }
      : {}),
    securityContext: {seccompProfile: {type: 'RuntimeDefault'}},
    containers: [
      {
        name: AGENT_CONTAINER,
        image: o.image,
        imagePullPolicy: 'IfNotPresent',
        args,
        env: [{name: 'NODE_NAME', valueFrom: {fieldRef: {fieldPath: 'spec.nodeName'}}}],
        // Root for the root-owned kubelet files; every capability dropped except the netfilter ones the areas need.
        securityContext: {
          runAsUser: 0,
          runAsNonRoot: false,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: {drop: ['ALL'], ...(privileges.capabilities.length > 0 ? {add: [...privileges.capabilities]} : {})},
        },
        // Ready = the document is in the log: the CLI reads a pod's log once it is Ready, so one GET per node.
        readinessProbe: {exec: {command: ['test', '-e', AGENT_DONE_FILE]}, periodSeconds: 2, failureThreshold: 1},
        resources: {requests: {cpu: '50m', memory: '64Mi'}, limits: {memory: '1Gi'}},
        volumeMounts,
      },
    ],
    volumes,
  }
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    // Which layouts' directories the pods mount, for whoever reviews the DaemonSet (absent: every known layout's).
    metadata: {name: AGENT_DAEMONSET, namespace, labels, ...(o.layouts ? {annotations: {[MOUNTS_FOR_LAYOUTS_ANNOTATION]: [...new Set(o.layouts)].sort().join(',')}} : {})},
    spec: {
      selector: {matchLabels: {[COMPONENT_LABEL]: COMPONENT_AGENT, [RUN_LABEL]: o.runId}},
      // Every node at once: the agent is collected once and deleted, there is nothing to roll.
      updateStrategy: {type: 'OnDelete'},
      template: {metadata: {labels}, spec: podSpec},
    },
  }
  return {namespace, objects: [ns, sa as KubeObject, ds as KubeObject], privileges}
}

/** The objects as one multi-document YAML stream (`kubectl apply -f` accepts it). */
export function manifestsYaml(objects: readonly KubeObject[]): string {
  return objects.map((o) => stringify(o, {lineWidth: 0, aliasDuplicateObjects: false})).join('---\n')
}
