// Package kube tests rocefab's quarantine of Kubernetes nodes against a
// real Kubernetes API server: kube-apiserver of k8s.io/kubernetes with
// etcd, both started on loopback by the test, and kubectl as the client
// rocefab apply runs. The API server, not rocefab's code, says which
// nodes are cordoned and tainted.
//
// It is a Go module of its own (rocefab's module is replaced by the
// directory three levels up) so that nothing of Kubernetes enters
// rocefab's module graph; the Kubernetes binaries are built from the
// module in k8s/, which holds only their versions (go.mod's tool
// directives), into the Go build cache: the first run compiles
// kube-apiserver and kubectl, later runs find them there.
//
// Run it with `(cd targets/interop/kube && go test -timeout 60m ./...)`:
// a cold build of kube-apiserver takes minutes on two cores. It skips,
// with the reason, when etcd is not installed (Debian package etcd-server)
// or the binaries cannot be built. ROCEFAB_KUBE_APISERVER and KUBECTL
// name binaries to use instead of building them; ROCEFAB_ETCD names etcd.
package kube
