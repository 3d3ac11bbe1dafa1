//go:build !linux

package outdir

import (
	"errors"
	"io/fs"
	"os"
)

// swap puts the directory tmp at dir, moving an existing dir aside first;
// old is where the replaced build lies, for the caller to clear.
func swap(tmp, dir string) (old string, err error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", os.Rename(tmp, dir)
	}
	return swapByRenames(tmp, dir)
}
