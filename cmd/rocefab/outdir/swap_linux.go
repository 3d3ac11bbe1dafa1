package outdir

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// swap puts the directory tmp at dir. When dir exists the two are
// exchanged in one step (renameat2 RENAME_EXCHANGE), so there is no moment
// at which dir is missing or half-written; old is then where the replaced
// build lies, for the caller to clear.
func swap(tmp, dir string) (old string, err error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", os.Rename(tmp, dir)
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return swapByRenames(tmp, dir)
	}
	if err != nil {
		return "", &os.LinkError{Op: "exchange", Old: tmp, New: dir, Err: err}
	}
	return tmp, nil
}
