//go:build !linux

package outdir

import (
	"io/fs"
	"os"
	"path/filepath"
)

// stageDir is the staging directory, written with package os on
// platforms other than Linux.
type stageDir struct{ path string }

func openStageDir(p string) (*stageDir, error) { return &stageDir{path: p}, nil }

func (d *stageDir) close() {}

// mkdir creates the directory rel (slash-separated, clean, local) and its
// missing parents.
func (d *stageDir) mkdir(rel string) error {
	return os.MkdirAll(filepath.Join(d.path, filepath.FromSlash(rel)), 0o755)
}

// create writes a new file rel with content; it fails with an error that
// matches fs.ErrExist when rel exists.
func (d *stageDir) create(rel string, content []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(filepath.Join(d.path, filepath.FromSlash(rel)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
