import {podRestartCommand} from '../../cli/base-command.js'

export default podRestartCommand({
  component: 'kube-proxy',
  summary: "Restart a node's kube-proxy pod when its rules drifted, and verify the rules are right again.",
  description:
    'Plans first: which kube-proxy pod on which node is deleted and which findings (IPT-*, PROXY-*) justify it. ' +
    'Checks with SelfSubjectAccessReview that you may delete and read what the run needs, asks for confirmation ' +
    '(or --yes), deletes exactly that pod (uid precondition), waits for the DaemonSet to start a Ready replacement ' +
    'on the same node, then re-collects the node until the findings are gone or --verify-timeout passes. Prints the ' +
    'node before and after; the exit code says whether the node is healthy afterwards. Never runs ' +
    '`kube-proxy --cleanup` and never flushes tables. Every restart is appended to the audit log. Only a DaemonSet ' +
    "pod is restarted this way: where the node's layout runs kube-proxy as a static pod (RKE2, GKE) or inside k3s, " +
    'deleting a pod restarts nothing, so it refuses (exit 1, nothing changed) and names the command to run on the ' +
    'node instead (`crictl stop` of the kube-proxy container; `systemctl restart k3s` or `k3s-agent`).',
  async restart(names, flags, ctx) {
    const [{podRestartFix}, {KUBE_PROXY_TARGET}, {environment}] = await Promise.all([import('../../app/fix/pod-restart.js'), import('../../app/repair/pod-restart-plan.js'), import('../../transports/connect.js')])
    return podRestartFix(KUBE_PROXY_TARGET, names, flags, environment(flags), ctx)
  },
})
