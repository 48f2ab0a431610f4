// /var/lib/kubelet/config.yaml as kubeadm writes it: one source for the test layouts and the fix-kubelet nodes.

/** The authentication and authorization blocks kubeadm writes (anonymous off, webhook authn/authz, the cluster CA). */
export const KUBEADM_KUBELET_AUTH = `authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
`

/** The whole file on a containerd node with systemd-resolved (the fields the checks read; keys sorted, as kubeadm marshals them). */
export const KUBEADM_KUBELET_CONFIG = `apiVersion: kubelet.config.k8s.io/v1beta1
${KUBEADM_KUBELET_AUTH}cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: unix:///var/run/containerd/containerd.sock
kind: KubeletConfiguration
resolvConf: /run/systemd/resolve/resolv.conf
rotateCertificates: true
staticPodPath: /etc/kubernetes/manifests
`
