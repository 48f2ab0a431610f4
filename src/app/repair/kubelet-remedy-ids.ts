// The check ids `fix kubelet --from-finding` accepts, with what each sets: data only, so the command's help and flag
// definitions can name them without loading the checks (kubelet-remedies.ts computes the values).

/** The check ids --from-finding accepts, with what it sets. */
export const AUTOMATED_KUBELET_REMEDIES: Readonly<Record<string, string>> = {
  'KUBELET-015': "cgroupDriver := the container runtime's cgroup driver (containerd SystemdCgroup)",
  'KUBELET-016': "clusterDNS := the kube-dns Service's ClusterIP(s) (node-local-dns addresses are kept)",
}
