import {podRestartCommand} from '../../cli/base-command.js'

export default podRestartCommand({
  component: 'calico-node',
  summary: "Restart a node's calico-node pod when its routes are missing or stale, and verify they are right again.",
  description:
    'The same loop as `fix kube-proxy` for Calico: plans which calico-node pod (k8s-app=calico-node in kube-system ' +
    'or calico-system) on which node is deleted and which route findings (RT-*) justify it, checks permissions, ' +
    'asks (or --yes), deletes exactly that pod (uid precondition), waits for the Ready replacement on the same node, ' +
    'then re-collects the node until the route findings are gone or --verify-timeout passes. Prints the node before ' +
    'and after; the exit code says whether it is healthy afterwards. Every restart is appended to the audit log.',
  async restart(names, flags, ctx) {
    const [{podRestartFix}, {CALICO_NODE_TARGET}, {environment}] = await Promise.all([import('../../app/fix/pod-restart.js'), import('../../app/repair/pod-restart-plan.js'), import('../../transports/connect.js')])
    return podRestartFix(CALICO_NODE_TARGET, names, flags, environment(flags), ctx)
  },
})
