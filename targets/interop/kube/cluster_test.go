package kube

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cluster is a Kubernetes API server with its etcd, on loopback, that the
// test started: no controller, scheduler or kubelet runs, so a Node is
// exactly what was written to it.
type cluster struct {
	// URL is the API server's; Token the bearer token of its one user,
	// in the group system:masters.
	URL, Token string
	// Kubeconfig is a kubeconfig file whose context Context reaches the
	// server; its current context is another, whose server nothing
	// listens on, so that only kubectl --context Context reaches this one.
	// Its context Reader reaches the server as a user RBAC lets read
	// nodes and nothing else.
	Kubeconfig, Context, Reader string
	// Kubectl is the kubectl to run.
	Kubectl string
	http    *http.Client
}

// binaries finds or builds the binaries the cluster runs: etcd from the
// system (ROCEFAB_ETCD or PATH), kube-apiserver and kubectl from
// ROCEFAB_KUBE_APISERVER and KUBECTL, else built from the module in k8s/
// with go tool, which keeps them in the Go build cache. It skips the test
// when one is absent or does not build, unless ROCEFAB_REQUIRE_KUBE is set
// (CI sets it, so that a build that broke fails there instead of passing
// as a skip).
func binaries(t *testing.T) (etcd, apiserver, kubectl string) {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("ROCEFAB_REQUIRE_KUBE") != "" {
		skip = t.Fatalf
	}
	etcd = os.Getenv("ROCEFAB_ETCD")
	if etcd == "" {
		var err error
		if etcd, err = exec.LookPath("etcd"); err != nil {
			skip("needs etcd on PATH (Debian package etcd-server) or ROCEFAB_ETCD")
		}
	}
	tool := func(env, name string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		gobin, err := exec.LookPath("go")
		if err != nil {
			skip("needs the go command to build %s (or %s naming one)", name, env)
		}
		start := time.Now()
		cmd := exec.Command(gobin, "tool", "-n", name)
		cmd.Dir = "k8s"
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			skip("%s could not be built from k8s/go.mod (%v): %s", name, err, tail(stderr.String(), 2000))
		}
		t.Logf("%s: built or found in the Go build cache in %s", name, time.Since(start).Round(time.Second))
		return strings.TrimSpace(string(out))
	}
	return etcd, tool("ROCEFAB_KUBE_APISERVER", "kube-apiserver"), tool("KUBECTL", "kubectl")
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startProcess starts a daemon of the test, its output in dir/name.log,
// killed when the test ends; the log's tail is shown when the test fails.
func startProcess(t *testing.T, dir, name, bin string, args ...string) {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("%s's log:\n%s", name, tail(string(b), 4000))
		}
	})
}

// startCluster starts etcd and kube-apiserver on loopback in a directory
// of the test's, with the options envtest (sigs.k8s.io/controller-runtime
// pkg/internal/testing/controlplane) starts them with: etcd with its data
// directory and client and peer URLs; kube-apiserver with --etcd-servers,
// a --cert-dir it writes its self-signed serving certificate to, the
// service account issuer and keys, --authorization-mode=RBAC, the
// ServiceAccount admission plugin off (no controller creates the default
// service account) and a service range; authentication by a static token
// (--token-auth-file) whose user is in system:masters. It waits until
// the server is ready and writes a kubeconfig.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	etcd, apiserver, kubectl := binaries(t)
	dir := t.TempDir()
	client, peer := freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	startProcess(t, dir, "etcd", etcd, "--data-dir", filepath.Join(dir, "etcd"), "--listen-client-urls", etcdURL,
		"--advertise-client-urls", etcdURL, "--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer))

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	saKey := filepath.Join(dir, "sa.key")
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	// The static token file: token,user,uid,"groups" per line.
	token, reader := rand.Text(), rand.Text()
	tokens := filepath.Join(dir, "tokens.csv")
	for path, b := range map[string][]byte{saKey: pemKey, tokens: []byte(token + `,rocefab-test,rocefab-test,"system:masters"` + "\n" + reader + ",node-reader,node-reader\n")} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	c := &cluster{URL: fmt.Sprintf("https://127.0.0.1:%d", port), Token: token, Context: "rocefab-lab", Reader: "node-reader", Kubectl: kubectl,
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}}
	startProcess(t, dir, "kube-apiserver", apiserver,
		"--etcd-servers="+etcdURL,
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--secure-port="+strconv.Itoa(port), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--token-auth-file="+tokens,
		"--disable-admission-plugins=ServiceAccount",
		"--service-account-issuer="+c.URL+"/",
		"--service-account-key-file="+saKey,
		"--service-account-signing-key-file="+saKey,
	)
	c.waitReady(t, 5*time.Minute)
	// node-reader may get and list nodes: kubectl reads them, and its
	// cordon is forbidden.
	c.must(t, http.StatusCreated, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterroles", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]string{"name": "node-reader"},
		"rules": []map[string][]string{{"apiGroups": {""}, "resources": {"nodes"}, "verbs": {"get", "list"}}},
	})
	c.must(t, http.StatusCreated, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]string{"name": "node-reader"},
		"roleRef":  map[string]string{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "node-reader"},
		"subjects": []map[string]string{{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "node-reader"}},
	})

	// The serving certificate kube-apiserver made itself, for kubectl to
	// check the server against.
	ca := filepath.Join(dir, "certs", "apiserver.crt")
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	conf := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster: {server: %q, certificate-authority: %q}
- name: elsewhere
  cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}
users:
- name: rocefab-test
  user: {token: %q}
- name: node-reader
  user: {token: %q}
contexts:
- name: %s
  context: {cluster: lab, user: rocefab-test}
- name: %s
  context: {cluster: lab, user: node-reader}
- name: elsewhere
  context: {cluster: elsewhere, user: rocefab-test}
current-context: elsewhere
`, c.URL, ca, freePort(t), token, reader, c.Context, c.Reader)
	if err := os.WriteFile(c.Kubeconfig, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitReady waits for the API server's /readyz to answer 200: etcd
// reached and the bootstrap hooks (RBAC's roles among them) done.
func (c *cluster) waitReady(t *testing.T, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		code, body, err := c.do(http.MethodGet, "/readyz", nil)
		if err == nil && code == http.StatusOK {
			return
		}
		last = fmt.Sprintf("%d %s %v", code, tail(string(body), 500), err)
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("kube-apiserver not ready in %s: %s", within, last)
}

// do sends one request to the API server with the test's token.
func (c *cluster) do(method, path string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// must sends a request and fails the test unless the server answers want.
func (c *cluster) must(t *testing.T, want int, method, path string, body any) []byte {
	t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	code, out, err := c.do(method, path, b)
	if err != nil || code != want {
		t.Fatalf("%s %s: %d, want %d: %v %s", method, path, code, want, err, tail(string(out), 1000))
	}
	return out
}

// taint is a Node's taint (k8s.io/api core/v1 Taint).
type taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// node is what the test reads and writes of a Node.
type node struct {
	Unschedulable bool    `json:"unschedulable,omitempty"`
	Taints        []taint `json:"taints,omitempty"`
}

// createNode creates a Node named name with spec n, as a kubelet would
// register it (without its status: nothing here reads it).
func (c *cluster) createNode(t *testing.T, name string, n node) {
	t.Helper()
	c.must(t, http.StatusCreated, http.MethodPost, "/api/v1/nodes", map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name, "labels": map[string]string{"kubernetes.io/hostname": name}},
		"spec":     n,
	})
}

// nodes lists every Node's spec by name, through the API (GET
// /api/v1/nodes), taints sorted by key.
func (c *cluster) nodes(t *testing.T) map[string]node {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec node `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal(c.must(t, http.StatusOK, http.MethodGet, "/api/v1/nodes", nil), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]node{}
	for _, it := range list.Items {
		slices.SortFunc(it.Spec.Taints, func(a, b taint) int { return strings.Compare(a.Key, b.Key) })
		out[it.Metadata.Name] = it.Spec
	}
	return out
}
