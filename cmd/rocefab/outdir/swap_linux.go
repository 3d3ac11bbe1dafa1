package outdir

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories tmp and dir in one step (renameat2
// RENAME_EXCHANGE), so there is no moment at which dir is missing or
// half-written. It reports false, with no error, where the kernel or the
// file system has no such exchange.
func exchange(tmp, dir string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return false, nil
	}
	if err != nil {
		return false, &os.LinkError{Op: "exchange", Old: tmp, New: dir, Err: err}
	}
	return true, nil
}
