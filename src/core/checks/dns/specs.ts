// Catalog entries for cluster DNS (area `dns`) and Service endpoints (area `endpoints`).
import type {CheckSpec} from '../types.js'

const DNS_REQUIRES = ['cluster:services', 'cluster:endpointSlices', 'cluster:pods']

export const DNS_NO_READY_ENDPOINTS: CheckSpec = {
  id: 'DNS-001',
  area: 'dns',
  severity: 'error',
  title: 'The cluster DNS Service (kube-dns) has no ready endpoints',
  looksAt:
    'The kube-system/kube-dns Service (or the Service selecting k8s-app=kube-dns), its EndpointSlices and the CoreDNS pods. ' +
    'Reported on every node examined: each node\'s pods lose name resolution.',
  why:
    'Pods resolve names through the kube-dns ClusterIP (kubelet\'s clusterDNS). With no ready endpoint behind it every lookup from every pod ' +
    'times out: Services cannot be reached by name, images from in-cluster registries fail, and readiness probes that resolve names start failing.',
  remedy:
    'Look at the CoreDNS pods: `kubectl -n kube-system get pods -l k8s-app=kube-dns -o wide` and `kubectl -n kube-system describe pod <pod>`; ' +
    '`kubectl -n kube-system logs <pod> --previous` shows why they crash (a bad Corefile in `kubectl -n kube-system get cm coredns -o yaml`, a loop ' +
    'detected by the `loop` plugin, no route to the API server). If the pods are Ready but the Service has no endpoints, compare the Service selector ' +
    '(`kubectl -n kube-system get svc kube-dns -o yaml`) with the pod labels, and check kube-controller-manager is running (it writes EndpointSlices). ' +
    '`kubectl -n kube-system rollout restart deploy/coredns` restarts CoreDNS.',
  requires: ['cluster:services', 'cluster:endpointSlices'],
}

export const DNS_POD_UNHEALTHY: CheckSpec = {
  id: 'DNS-002',
  area: 'dns',
  severity: 'error',
  title: 'A CoreDNS pod on this node is not ready or keeps restarting',
  looksAt: 'Pods selected by the kube-dns Service (label k8s-app=kube-dns) scheduled on this node: Ready condition, container states, restarts shortly before collection.',
  why:
    'A CoreDNS pod that is not ready drops out of kube-dns and leaves fewer replicas to answer the whole cluster; one that keeps restarting answers ' +
    'intermittently, so lookups fail at random (often a 5 s timeout then a retry). Both often point at this node: no route to the API server, ' +
    'memory pressure (OOMKilled), or a broken pod network.',
  remedy:
    '`kubectl -n kube-system describe pod <pod>` for events and probe failures, `kubectl -n kube-system logs <pod> --previous` for the crash. ' +
    'OOMKilled: raise the coredns Deployment\'s memory limit. `[FATAL] plugin/loop`: the node\'s /etc/resolv.conf points back at CoreDNS (set ' +
    'kubelet\'s resolvConf to the real upstream file, e.g. /run/systemd/resolve/resolv.conf). If only pods on this node fail, check the node\'s pod ' +
    'networking (`kubectl node-doctor check NODE --only routes`), then delete the pod so it is rescheduled: `kubectl -n kube-system delete pod <pod>`.',
  requires: ['cluster:pods'],
}

export const DNS_ENDPOINTS_MISMATCH: CheckSpec = {
  id: 'DNS-003',
  area: 'dns',
  severity: 'error',
  title: 'kube-dns EndpointSlices do not match the ready CoreDNS pods on this node',
  looksAt:
    'The kube-dns EndpointSlices (endpoints with nodeName = this node) against the CoreDNS pods on this node: every Ready pod IP must be a ready ' +
    'endpoint, and every ready endpoint must be a Ready CoreDNS pod.',
  why:
    'kube-proxy load-balances DNS queries over the ready endpoints. A stale endpoint (pod gone, IP reused, pod not Ready) gets its share of queries ' +
    'from every node and they time out; a Ready pod missing from the slices does no work. Both mean the EndpointSlice controller is behind or stuck.',
  remedy:
    'Compare `kubectl -n kube-system get endpointslices -l kubernetes.io/service-name=kube-dns -o yaml` with ' +
    '`kubectl -n kube-system get pods -l k8s-app=kube-dns -o wide`. Stale slices mean kube-controller-manager is not reconciling: check it is running ' +
    'and look for errors in its log (`kubectl -n kube-system logs -l component=kube-controller-manager`). Restarting CoreDNS ' +
    '(`kubectl -n kube-system rollout restart deploy/coredns`) makes the controller rewrite the endpoints.',
  requires: DNS_REQUIRES,
}

const EP_LOOKS_AT =
  'Every Service with a selector (kube-dns is DNS-003\'s) and its EndpointSlices written by the EndpointSlice controller, against the pods the selector ' +
  'picks in the Service\'s namespace. Only endpoints and pods on this node are judged, so each discrepancy is reported once, on the node the pod is on.'

const EP_REMEDY_TAIL =
  'The EndpointSlice controller in kube-controller-manager writes these: check it is running and not erroring ' +
  '(`kubectl -n kube-system logs -l component=kube-controller-manager | grep -i endpointslice`), and that nothing else edits the slices ' +
  '(`kubectl get endpointslice NAME -o yaml`: managed-by label, managedFields).'

export const EP_STALE: CheckSpec = {
  id: 'EP-001',
  area: 'endpoints',
  severity: 'error',
  title: 'A Service has a ready endpoint on this node that is not a Ready pod it selects',
  looksAt: EP_LOOKS_AT,
  why:
    'kube-proxy on every node sends the Service\'s traffic to ready endpoints. An endpoint whose pod is gone, not Ready, terminating or no longer ' +
    'selected receives a share of connections that time out or reach the wrong pod (when the IP was reused).',
  remedy:
    'Compare `kubectl -n NS get endpointslices -l kubernetes.io/service-name=SVC -o wide` with `kubectl -n NS get pods -o wide -l <selector>`. ' +
    EP_REMEDY_TAIL +
    ' Touching the Service (`kubectl -n NS annotate svc SVC node-doctor/resync=$(date +%s) --overwrite`) makes the controller recompute its slices.',
  requires: DNS_REQUIRES,
}

export const EP_MISSING: CheckSpec = {
  id: 'EP-002',
  area: 'endpoints',
  severity: 'warning',
  title: 'A Ready pod on this node selected by a Service is missing from its ready endpoints',
  looksAt: EP_LOOKS_AT,
  why:
    'A Ready pod that is not a ready endpoint gets no Service traffic: capacity is lost silently, and when it is the only pod the Service is down ' +
    '(then the finding is an error). Pods that changed less than 30 s before the snapshot are not reported: slices lag by a moment.',
  remedy:
    'Check the pod really matches the selector (`kubectl -n NS get svc SVC -o jsonpath={.spec.selector}`, `kubectl -n NS get pod POD --show-labels`) ' +
    'and is Ready (`kubectl -n NS get pod POD -o wide`). ' +
    EP_REMEDY_TAIL,
  requires: DNS_REQUIRES,
}

export const DNS_SPECS: readonly CheckSpec[] = [DNS_NO_READY_ENDPOINTS, DNS_POD_UNHEALTHY, DNS_ENDPOINTS_MISMATCH]
export const ENDPOINTS_SPECS: readonly CheckSpec[] = [EP_STALE, EP_MISSING]
