package hosttest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var itoa = strconv.Itoa

// Sysfs is a sysfs root for the runtime (ROCEFAB_SYSFS) of a server run
// in a network namespace without RDMA: class/ is the namespace's own
// /sys/class, and the rdma_cm configfs group is an empty directory, which
// holds no HCA.
func Sysfs(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sys")
	if err := os.MkdirAll(filepath.Join(root, "kernel", "config", "rdma_cm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/sys/class", filepath.Join(root, "class")); err != nil {
		t.Fatal(err)
	}
	return root
}

// standIns are the tools a veth cannot answer for: each prints, for its
// read, what nic holds (answers/dcb.OBJECT, answers/mlnx_qos beside it),
// and takes every other invocation as a write that changes nothing, as
// a NIC already holding the values does. dcb reads are `dcb -j OBJECT
// show dev DEV` (dcb(8)); mlnx_qos reads are `mlnx_qos -i DEV`, and
// mlnx_qos prints its state after a write too (mlnx-tools python/mlnx_qos).
const (
	standInDcb = `#!/usr/bin/env bash
if [[ $1 == -j && $3 == show ]]; then exec cat "${BASH_SOURCE%/*}/answers/dcb.$2"; fi
exit 0
`
	standInMlnxQos = `#!/usr/bin/env bash
exec cat "${BASH_SOURCE%/*}/answers/mlnx_qos"
`
)

// Tools writes the stand-ins of dcb and mlnx_qos for a NIC holding nic
// into a new directory and returns it, to go first on PATH (or at a
// Server's /usr/local/sbin).
func Tools(t testing.TB, nic NIC) string {
	t.Helper()
	bin := t.TempDir()
	files := map[string]string{"dcb": standInDcb, "mlnx_qos": standInMlnxQos, "answers/mlnx_qos": nic.MlnxQos()}
	for obj, js := range nic.DCB() {
		files["answers/dcb."+obj] = js + "\n"
	}
	for rel, content := range files {
		p := filepath.Join(bin, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}
