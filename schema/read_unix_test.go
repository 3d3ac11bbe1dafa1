//go:build unix

package schema

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe given as an intent, or as an explicit device list, is
// refused at once: reading it would block until someone writes to it.
func TestLoadNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fabric.cue")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	list := filepath.Join(dir, "devices.json")
	if err := syscall.Mkfifo(list, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { _, _, err := Load(fifo); done <- err }()
	go func() { _, _, err := ReadDeviceList(list); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
				t.Errorf("reading a named pipe: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("reading a named pipe blocked")
		}
	}
}
